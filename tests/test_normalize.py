"""`kg.normalize.norm_key` folds plurals only where a word is written as one (invented names)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.normalize import fold_diacritics, norm_key


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("ZorbRES", "zorbres"),  # a capital S is a letter of the name
        ("QuixLens", "quixlens"),  # CamelCase: its last part "Lens" is not a plural
        ("the QuixLens tool", "the quixlens tool"),
        ("PlinkBias", "plinkbias"),
        ("GrumpClass", "grumpclass"),
        ("FlumNets", "flumnet"),  # ... but "Nets" is
        ("FLUMs", "flum"),  # a lower-case s after capitals: a plural acronym
        ("Flum Networks", "flum network"),
        ("QUIXLENS", "quixlens"),  # all capitals: an acronym, never a plural
        ("blorps (FLUMs)", "blorps flum"),  # the written last word, punctuation aside
    ],
)
def test_plural_folding_follows_how_the_word_is_written(label: str, key: str) -> None:
    assert norm_key(label) == key


def test_camel_case_singular_and_plural_share_a_key() -> None:
    assert norm_key("FlumNet") == norm_key("FlumNets") == norm_key("flumnets")
    assert norm_key("QuixLens") != norm_key("QuixLen")


@given(st.one_of(st.text(), st.text(st.characters(max_codepoint=127))))
def test_folding_diacritics_is_decomposing_and_dropping_combining_marks(text: str) -> None:
    # The ASCII shortcut included: it must give what the full decomposition gives.
    decomposed = unicodedata.normalize("NFKD", text)
    assert fold_diacritics(text) == "".join(c for c in decomposed if not unicodedata.combining(c))
    assert fold_diacritics("Fréchet Ångström") == "Frechet Angstrom"


@given(st.lists(st.text(max_size=12), max_size=30))
def test_keys_kept_for_a_stage_are_the_keys_and_go_with_it(labels: list[str]) -> None:
    """`keys_kept` (the corpus stage keys every mention again and again) gives the keys
    `norm_key` gives, holds them only inside the block, and nests."""
    from kg import normalize

    outside = [norm_key(label) for label in labels]
    with normalize.keys_kept():
        first = [norm_key(label) for label in labels]
        with normalize.keys_kept():  # nested: the same store
            again = [norm_key(label) for label in reversed(labels)]
        assert normalize._kept is not None and set(normalize._kept) == set(labels)
    assert first == outside and again == outside[::-1]
    assert normalize._kept is None
