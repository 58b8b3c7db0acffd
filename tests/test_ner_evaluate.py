"""Exact-match entity scoring and `evaluate_entities` on a corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from kg.eval.ner import TypeScore, evaluate_entities, score_entities

FIXTURES = Path(__file__).parent / "fixtures" / "ner"


def test_only_exact_span_and_type_counts() -> None:
    gold = [[(0, 2, "Task"), (3, 4, "Method"), (5, 6, "Metric")]]
    pred = [[(0, 2, "Task"), (3, 5, "Method"), (5, 6, "Task")]]
    r = score_entities(gold, pred)
    assert r.by_type == {
        "Method": TypeScore(tp=0, fp=1, fn=1),
        "Metric": TypeScore(tp=0, fp=0, fn=1),
        "Task": TypeScore(tp=1, fp=1, fn=0),
    }
    assert r.micro == TypeScore(tp=1, fp=2, fn=2)
    assert r.micro.precision == pytest.approx(1 / 3)
    assert r.micro.f1 == pytest.approx(1 / 3)


def test_spans_are_matched_within_their_own_document() -> None:
    r = score_entities([[(0, 1, "Task")], []], [[], [(0, 1, "Task")]])
    assert r.micro == TypeScore(tp=0, fp=1, fn=1)
    assert r.docs == 2


def test_empty_scores_are_zero_not_errors() -> None:
    assert score_entities([[]], [[]]).micro.f1 == 0.0


def test_document_counts_must_agree() -> None:
    with pytest.raises(ValueError):
        score_entities([[], []], [[]])


def _ruler(patterns: list[dict[str, object]]) -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(patterns)
    return nlp


def test_evaluate_scierc_runs_on_the_corpus_tokens() -> None:
    nlp = _ruler(
        [
            {"label": "Method", "pattern": "BERT"},
            {"label": "Task", "pattern": [{"LOWER": "question"}, {"LOWER": "answering"}]},
            {"label": "Task", "pattern": "graph"},  # a false positive (twice)
        ]
    )
    r = evaluate_entities(nlp, FIXTURES / "tiny_scierc.json")
    assert r.by_type["Method"] == TypeScore(tp=1, fp=0, fn=2)
    assert r.by_type["Task"] == TypeScore(tp=1, fp=2, fn=1)
    assert r.micro.tp + r.micro.fn == 8  # every gold span, the nested one included
    assert "ALL" in r.table().splitlines()[-1]


def test_evaluate_tdmsci_maps_scierc_labels_through_map_label() -> None:
    nlp = _ruler(
        [
            {"label": "Material", "pattern": "ImageNet-1k"},  # 1 token to spaCy, 3 in TDMSci
            {"label": "Task", "pattern": [{"LOWER": "image"}, {"LOWER": "classification"}]},
            {"label": "Method", "pattern": "use"},  # TDMSci has no methods: ignored
            {"label": "Material", "pattern": "rises"},  # a Material but no dataset: ignored
        ]
    )
    r = evaluate_entities(nlp, FIXTURES / "tiny_tdmsci.conll")
    assert set(r.by_type) == {"DATASET", "TASK", "METRIC"}
    assert r.micro == TypeScore(tp=2, fp=0, fn=1)


def test_pretokenized_evaluation_tags_the_corpus_tokens() -> None:
    nlp = _ruler(
        [
            {"label": "Material", "pattern": [{"TEXT": "ImageNet"}, {"TEXT": "-"}, {"TEXT": "1k"}]},
            {"label": "Material", "pattern": "ImageNet-1k"},
        ]
    )
    on_text = evaluate_entities(nlp, FIXTURES / "tiny_tdmsci.conll")
    on_tokens = evaluate_entities(nlp, FIXTURES / "tiny_tdmsci.conll", pretokenized=True)
    assert on_text.by_type["DATASET"] == on_tokens.by_type["DATASET"] == TypeScore(tp=1)
