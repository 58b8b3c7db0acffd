"""Cues that a candidate is the paper's own contribution (kg.extract.contribution), on
invented sentences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extract.candidates import Occurrence
from kg.extract.contribution import (
    _LIST_ITEM,
    _NAMED,
    PaperText,
    _list_item,
    _may_name,
    contribution_features,
    title_initials,
    title_stem,
)
from kg.extract.features import head_word_types
from kg.extract.terms import Term
from kg.types import ConceptType, Field


def _cues(title: str, abstract: str, label: str, *, named: bool = False,
          names: tuple[int, ...] = (), count: int = 1) -> dict[str, float]:
    """The cues of `label` at its every occurrence in the abstract (one sentence per '. ')."""
    occurrences: list[tuple[Field, Occurrence]] = []
    sentences, start = [], 0
    for part in abstract.split(". "):
        sentences.append((start, start + len(part) + 1))
        start += len(part) + 2
    for i, (s, e) in enumerate(sentences):
        at = abstract.find(label, s, e)
        if at >= 0:
            occ = Occurrence(term=Term(0, 1, label, "chunk"), role=None, introduced=False,
                             type_cues=(), sentence=i, sent_start=s, sent_end=e,
                             char_start=at, char_end=at + len(label))
            occurrences.append((Field.ABSTRACT, occ))
    assert occurrences, label
    paper = PaperText.of({Field.TITLE: title, Field.ABSTRACT: abstract}, list(names))
    return contribution_features(occurrences, label, count, named, paper)


def test_a_list_after_the_introducing_verb() -> None:
    f = _cues("Frobbing Widgets", "We propose two novel losses for widgets: a wobble loss and "
              "a tilt loss. Results are good.", "tilt loss")
    assert f["authors_introduce_before"] == f["colon_after_introduce"] == 1.0
    other = _cues("Frobbing Widgets", "Prior work used a tilt loss. We propose a method.",
                  "tilt loss")
    assert other["authors_introduce_before"] == other["colon_after_introduce"] == 0.0


def test_the_direct_object_of_the_introducing_verb() -> None:
    direct = _cues("T", "We introduce a novel gizmo sampler.", "gizmo sampler")
    assert direct["introduce_direct"] == 1.0 and direct["introduce_words_between"] == 2.0
    purpose = _cues("T", "We introduce a method for gizmo sampling.", "gizmo sampling")
    assert purpose["authors_introduce_before"] == 1.0 and purpose["introduce_direct"] == 0.0


def test_novel_named_and_listed_contributions() -> None:
    assert _cues("T", "We build a novel gizmo sampler for this.", "gizmo sampler")["novel_near"]
    assert _cues("T", "We describe a method called Zorblax that works.", "Zorblax")[
        "named_before"]
    listed = _cues("T", "Our contributions are (i) a gizmo sampler and (ii) a new corpus.",
                   "new corpus")
    assert listed["list_item"] == listed["contribution_sentence"] == 1.0
    assert not _cues("T", "A gizmo sampler is old.", "gizmo sampler")["list_item"]


def test_names_given_without_as_or_in_quotes() -> None:
    for text, label in [("We find a property we call ``zorbility'' of the widgets.", "zorbility"),
                        ("These steps are referred to Zorblax in what follows.", "Zorblax"),
                        ("Only a few heads, a.k.a, gizmo heads, matter.", "gizmo heads"),
                        ("We call it Zorblax and test it.", "Zorblax")]:
        assert _cues("T", text, label)["named_before"] == 1.0, text
    assert not _cues("T", "We recall the gizmo sampler.", "gizmo sampler")["named_before"]


def test_the_subject_of_a_result() -> None:
    f = _cues("T", "We study widgets. Specifically, Zorblax outperforms all baselines.",
              "Zorblax", named=True, names=(1,))
    assert f["sentence_subject"] == f["subject_of_result"] == 1.0
    g = _cues("T", "We study widgets and compare with Zorblax on two tasks.", "Zorblax",
              named=True, names=(1,))
    assert g["sentence_subject"] == g["subject_of_result"] == 0.0


@pytest.mark.parametrize(("label", "words", "expected"), [
    ("UORO", ("Unbiased", "Online", "Recurrent", "Optimization"), True),
    ("GNF", ("A", "Graph", "of", "Neural", "Fields"), True),  # a small word skipped
    ("GNF", ("Graph", "Neural", "Networks"), False),
    ("gnf", ("Graph", "Neural", "Fields"), False),  # not a short form
])
def test_title_initials(label: str, words: tuple[str, ...], expected: bool) -> None:
    assert title_initials(label, words) is expected


def test_title_stems_and_title_names() -> None:
    assert title_stem("WobbleNet", ("Learning", "Wobbleable", "Widgets"))
    assert not title_stem("wobble", ("Wobbleable",))  # a plain word, not a coined name
    f = _cues("Zorblax: Sampling Gizmos Fast", "We present Zorblax. It is fast.", "Zorblax",
              named=True, names=(3, 1), count=3)
    assert f["title_name"] == 1.0 and f["name_rank"] == 1.0 and f["names_in_paper"] == 2.0
    dash = _cues("Zorblax - Sampling Gizmos Fast", "We present Zorblax.", "Zorblax")
    assert dash["title_name"] == 1.0


def test_nesting_in_known_terms() -> None:
    abstract = "We use the Earth Mover's Distance here."
    start = abstract.index("Earth")
    paper = PaperText.of({Field.ABSTRACT: abstract}, [],
                         {Field.ABSTRACT: [(start, start + len("Earth Mover's Distance"))]})

    def occ(label: str) -> list[tuple[Field, Occurrence]]:
        at = abstract.index(label)
        return [(Field.ABSTRACT, Occurrence(term=Term(0, 1, label, "span"), role=None,
                                            introduced=False, type_cues=(), sentence=0,
                                            sent_start=0, sent_end=len(abstract),
                                            char_start=at, char_end=at + len(label)))]

    assert paper.nesting(occ("Mover's Distance")) == (1.0, 0.0)
    assert paper.nesting(occ("the Earth Mover's Distance")) == (0.0, 1.0)
    assert paper.nesting(occ("Earth Mover's Distance")) == (0.0, 0.0)  # the term itself


def test_head_words_vote_with_the_vocabularies_types() -> None:
    shares, seen = head_word_types("detection")
    assert seen > 10 and max(shares, key=shares.__getitem__) is ConceptType.TASK
    assert head_word_types("zorblaxification") == ({}, 0)


# Pieces of prose around list markers and naming words, so that random text often comes near
# the patterns' edge cases: markers with spaces, words longer than a marker, unicode.
_PIECES = ("(", ")", ",", " ", "  ", "\t", "i", "iv", "vii", "3", "b", "(ii)", "( ii )", "(3 )",
           "first ,", "first",
           "Moreover", "a", "the", "our", "pre-trained", "-", "X_1", "é", "Ⅳ", "called",
           "named ", "known as", "a.k.a.", "aka", "dubbed", "``", "“", ":", ".", "K")


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=24).map("".join))
def test_the_cheap_tests_before_the_anchored_patterns_change_no_answer(near: str) -> None:
    # `_list_item` tries the pattern from the marker on; the plain search tries everywhere.
    assert _list_item(near) == bool(_LIST_ITEM.search(near))
    # `_may_name` only ever rules out text the pattern does not match.
    assert _may_name(near) or not _NAMED.search(near)
