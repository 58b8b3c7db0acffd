"""The shipped entity pipeline loads offline and tags text; training runs end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.errors import ModelError
from kg.extract.recogniser import (
    MODEL_DIR,
    NER_MODEL_DIR,
    TaggedSpan,
    entity_labels,
    load_model,
    tag,
)
from kg.train.recogniser import TrainOptions, train_model

FIXTURES = Path(__file__).parent / "fixtures" / "ner"
SCIERC_LABELS = {"Task", "Method", "Metric", "Material", "OtherScientificTerm", "Generic"}


def test_shipped_model_loads_offline_and_tags_a_sentence() -> None:
    nlp = load_model()
    assert set(entity_labels(nlp)) == SCIERC_LABELS
    text = (
        "We propose a graph neural network for semi-supervised node classification "
        "and evaluate it on the Cora dataset, where it improves accuracy."
    )
    (spans,) = tag([text], nlp)
    assert spans, "the model found no entity at all"
    for span in spans:
        assert isinstance(span, TaggedSpan)
        assert text[span.start : span.end] == span.text
        assert span.label in SCIERC_LABELS
    found = {(s.text, s.label) for s in spans}
    assert ("node classification", "Task") in found or (
        "semi-supervised node classification",
        "Task",
    ) in found
    assert ("accuracy", "Metric") in found


def test_shipped_model_records_how_it_was_trained() -> None:
    record = json.loads((MODEL_DIR / "training.json").read_text())
    assert record["options"]["seed"] == 0
    assert record["dev_scores"]["ALL"]["f"] > 0.5


def test_missing_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="kg train"):
        load_model(tmp_path)


def test_training_end_to_end_on_a_tiny_subset(tmp_path: Path) -> None:
    options = TrainOptions(limit=2, max_steps=6, eval_frequency=3, width=32, depth=1)
    result = train_model(
        FIXTURES / "tiny_scierc.json", FIXTURES / "tiny_scierc.json", tmp_path / "model", options
    )
    nlp = load_model(result.model_dir)
    assert nlp.pipe_names == ["tok2vec", "spancat"]
    assert list(tag(["BERT for question answering."], nlp))  # runs on raw text
    record = json.loads((result.model_dir / "training.json").read_text())
    assert record["options"]["max_steps"] == 6
    assert result.dev.micro.tp + result.dev.micro.fn == 8


def test_training_is_reproducible(tmp_path: Path) -> None:
    options = TrainOptions(limit=2, max_steps=4, eval_frequency=2, width=32, depth=1)
    data = FIXTURES / "tiny_scierc.json"
    a = train_model(data, data, tmp_path / "a", options)
    b = train_model(data, data, tmp_path / "b", options)
    for weights in ("tok2vec/model", "spancat/model"):
        assert (a.model_dir / weights).read_bytes() == (b.model_dir / weights).read_bytes()


def test_kg_train_command(tmp_path: Path) -> None:
    data = str(FIXTURES / "tiny_scierc.json")
    out = tmp_path / "cli-model"
    result = CliRunner().invoke(
        main,
        [
            "train",
            "--train",
            data,
            "--dev",
            data,
            "-o",
            str(out),
            "--steps",
            "3",
            "--width",
            "32",
            "--depth",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "ALL" in result.output and (out / "config.cfg").is_file()


def test_kg_train_reports_bad_input_cleanly(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "train",
            "--train",
            str(FIXTURES / "bad_span_scierc.json"),
            "--dev",
            str(FIXTURES / "tiny_scierc.json"),
            "-o",
            str(tmp_path / "m"),
        ],
    )
    assert result.exit_code == 2
    assert "bad_span_scierc.json, record 1" in result.output


def test_ner_variant_trains_and_tags(tmp_path: Path) -> None:
    options = TrainOptions(
        component="ner", limit=2, max_steps=4, eval_frequency=2, width=32, depth=1
    )
    data = FIXTURES / "tiny_scierc.json"
    result = train_model(data, data, tmp_path / "ner", options)
    nlp = load_model(result.model_dir)
    assert nlp.pipe_names == ["tok2vec", "ner"]
    (spans,) = tag(["BERT for question answering."], nlp)
    assert all(s.label in SCIERC_LABELS for s in spans)


def test_shipped_ner_variant_loads_and_tags() -> None:
    nlp = load_model(NER_MODEL_DIR)
    assert set(entity_labels(nlp)) == SCIERC_LABELS
    (spans,) = tag(["We report accuracy on ImageNet."], nlp)
    assert ("accuracy", "Metric") in {(s.text, s.label) for s in spans}
