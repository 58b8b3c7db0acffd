"""Broad candidates (pieces of noun phrases) and the context features, on invented sentences."""

from __future__ import annotations

import pytest
from spacy.language import Language

from kg.extract.assemble import ParsedField, group_candidates, paper_features
from kg.extract.candidates import collect
from kg.extract.nlp import load_nlp
from kg.extract.subspans import sub_terms
from kg.extract.textfix import repair
from kg.types import Field

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def nlp() -> Language:
    return load_nlp()


def _labels(nlp: Language, text: str) -> set[str]:
    return {t.label for t in sub_terms(nlp(text), set())}


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("The depth enables photo-realistic novel view synthesis on long trajectories.",
         {"novel view synthesis", "view synthesis", "photo-realistic novel view synthesis"}),
        ("We add the classifier to the in-context learning process.", {"in-context learning"}),
        ("Unlike methods that use mixture-of-experts layers, ours is dense.",
         {"mixture-of-experts"}),
        ("It is faster than Hyperband and Spearmint on every task.", {"Hyperband", "Spearmint"}),
        ("The agent reaches an unprecedented 85.5% success rate.", {"success rate"}),
    ],
)
def test_pieces_of_noun_phrases_are_candidates(nlp: Language, text: str, wanted: set[str]) -> None:
    assert wanted <= _labels(nlp, text)


def test_pieces_never_start_on_a_determiner_or_cut_a_hyphenated_word(nlp: Language) -> None:
    labels = _labels(nlp, "Our method improves the state-of-the-art long-context models.")
    assert not any(label.split()[0].lower() in {"our", "the"} for label in labels)
    assert "context models" not in labels and "art long" not in labels


def test_spans_already_taken_are_not_repeated(nlp: Language) -> None:
    doc = nlp("We study graph neural networks.")
    start = next(t.i for t in doc if t.text == "graph")
    taken = {(start, start + 3)}
    assert all((t.start, t.end) not in taken for t in sub_terms(doc, taken))


def _features(nlp: Language, text: str) -> dict[str, dict[str, float]]:
    fixed = repair(text)
    doc = nlp(fixed.text)
    fields = [ParsedField(Field.ABSTRACT, fixed, collect(doc))]
    cands = group_candidates(fields)
    return paper_features(cands, fields, lambda label: (), model_runs=False)


def test_context_features_see_the_verb_the_authors_and_the_position(nlp: Language) -> None:
    features = _features(nlp, "Image captioning is hard. We propose Glimmer, a new captioner. "
                              "Glimmer outperforms older captioners on the Flick benchmark.")
    glimmer = features["glimmer"]
    assert glimmer["verb_propose"] >= 1 and glimmer["author_sentence"] == 1
    assert glimmer["count"] == 2 and glimmer["first_sentence"] == 0
    assert glimmer["kind_name"] == 1 and glimmer["initial_capital"] == 1
    captioning = features["image captioning"]
    assert captioning["first_sentence"] == 1 and captioning["author_sentence"] == 0
