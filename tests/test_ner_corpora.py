"""Readers for SciERC JSON and TDMSci CoNLL: tokens, spacing, spans, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy

from kg.errors import InputError
from kg.eval.corpora import (
    CorpusFormat,
    GoldSpan,
    detect_format,
    read_gold,
    read_scierc,
    read_tdmsci,
    sniff_format,
)

FIXTURES = Path(__file__).parent / "fixtures" / "ner"


def test_scierc_document_offsets_become_exclusive_token_spans() -> None:
    d1, d2 = read_scierc(FIXTURES / "tiny_scierc.json")
    assert d1.id == "D1"
    assert d1.words[:3] == ("We", "apply", "BERT")
    assert d1.sent_starts.index(True, 1) == 7
    assert d1.entities == (
        GoldSpan(2, 3, "Method"),
        GoldSpan(4, 6, "Task"),
        GoldSpan(7, 8, "Generic"),
        GoldSpan(9, 10, "Metric"),
        GoldSpan(11, 12, "Material"),
    )
    # A nested span stays in `entities` but not in the flat set a tagger learns.
    assert GoldSpan(2, 4, "Method") in d2.entities
    assert d2.flat_entities == (GoldSpan(1, 4, "Method"), GoldSpan(5, 7, "Task"))


def test_tdmsci_bio_tags_and_spacing_from_offsets() -> None:
    first, second = read_tdmsci(FIXTURES / "tiny_tdmsci.conll")
    assert first.entities == (GoldSpan(2, 5, "DATASET"), GoldSpan(6, 8, "TASK"))
    assert second.entities == (GoldSpan(0, 2, "METRIC"),)
    doc = first.to_doc(spacy.blank("en").vocab)
    assert doc.text == "We use ImageNet-1k for image classification."
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("ImageNet-1k", "DATASET"),
        ("image classification", "TASK"),
    ]


def test_to_doc_keeps_nested_gold_in_span_group_and_renames_labels() -> None:
    d2 = read_scierc(FIXTURES / "tiny_scierc.json")[1]
    doc = d2.to_doc(spacy.blank("en").vocab, label_map={"Method": "M", "Task": ""})
    assert [(e.text, e.label_) for e in doc.ents] == [("graph neural network", "M")]
    assert sorted(s.text for s in doc.spans["gold"]) == ["graph neural network", "neural network"]


def test_other_json_is_not_taken_for_a_corpus(tmp_path: Path) -> None:
    other = tmp_path / "gold.json"
    other.write_text('{\n "papers": []\n}\n')
    assert sniff_format(other) is None
    with pytest.raises(InputError, match="neither SciERC"):
        read_gold(other)


def test_format_is_detected_from_content() -> None:
    assert detect_format(FIXTURES / "tiny_scierc.json") is CorpusFormat.SCIERC
    assert detect_format(FIXTURES / "tiny_tdmsci.conll") is CorpusFormat.TDMSCI
    assert len(read_gold(FIXTURES / "tiny_tdmsci.conll")) == 2


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bad_span_scierc.json", "bad_span_scierc.json, record 1: entity [0, 5, 'Task'] lies"),
        ("bad_json_scierc.json", "bad_json_scierc.json, record 2: not valid JSON"),
        ("bad_tag_tdmsci.conll", "bad_tag_tdmsci.conll, record 2: bad BIO tag 'X-TASK'"),
    ],
)
def test_malformed_input_names_file_and_record(name: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_gold(FIXTURES / name)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_gold(tmp_path / "absent.json")


@pytest.mark.shared
def test_real_corpora_match_published_counts(shared_data: Path) -> None:
    train = read_scierc(shared_data / "scierc" / "train.json")
    dev = read_scierc(shared_data / "scierc" / "dev.json")
    assert (len(train), sum(len(d.words) for d in train), sum(len(d.entities) for d in train)) == (
        350,
        45412,
        5598,
    )
    assert (len(dev), sum(len(d.entities) for d in dev)) == (50, 811)
    tdm = read_tdmsci(shared_data / "tdmsci" / "train_1500_v2.conll")
    labels = {e.label for d in tdm for e in d.entities}
    assert labels == {"TASK", "DATASET", "METRIC"}
    assert sum(len(d.entities) for d in tdm) == 2175
