"""Where annotators draw a term's edges (SciERC/SciREX word counts): the builder on invented
documents, the features it gives a candidate, the shipped table read back."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from kg.extract.features import FEATURE_GROUPS
from kg.extract.termhood import COLUMNS, NAMES, termhood_features, word_counts
from kg.train.decisions import ACCEPT_ONLY

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bth(load_file: Callable[[Path], ModuleType]) -> ModuleType:
    """scripts/build_termhood.py, loaded by conftest's `load_file`."""
    return load_file(ROOT / "scripts/build_termhood.py")



def test_words_are_counted_by_where_they_stand_against_the_spans(bth: ModuleType) -> None:
    # "A detailed [error analysis] of [pre-trained encoders] ." / "We study [pooling] ."
    words = ["A", "detailed", "error", "analysis", "of", "pre-trained", "encoders", ".",
             "We", "study", "pooling", "."]
    found = bth.count_words([(words, {0, 8}, [(2, 4), (5, 7), (10, 11)])])
    assert found["detailed"] == {"outside": 1, "before": 1}
    assert found["error"] == {"start": 1}
    assert found["analysis"] == {"inside": 1, "end": 1}
    # "pre-trained" is two words once normalised, as in a candidate's key.
    assert found["pre"] == {"start": 1} and found["trained"] == {"inside": 1}
    assert found["encoder"] == {"inside": 1, "end": 1}
    assert found["pooling"] == {"start": 1, "end": 1}
    assert found["study"] == {"outside": 1, "before": 1}
    assert found["of"] == {"outside": 1, "before": 1}
    # A span at a sentence's start has no word before it ("results" ends the sentence before).
    found = bth.count_words([(["Good", "results", "Transformers", "help"], {0, 2}, [(2, 3)])])
    assert found["result"] == {"outside": 1}


def test_scirex_documents_are_read_and_bad_lines_named(bth: ModuleType, tmp_path: Path) -> None:
    doc = {"words": ["We", "use", "Foo", "Net", "."], "sentences": [[0, 5]],
           "ner": [[2, 4, "Method"]]}
    [(words, starts, spans)] = bth.scirex_docs([json.dumps(doc), ""])
    assert words == doc["words"] and starts == {0} and spans == [(2, 4)]
    with pytest.raises(SystemExit, match=r"x\.jsonl: line 2: not a SciREX document"):
        list(bth.scirex_docs([json.dumps(doc), "{}"], "x.jsonl"))


def test_features_read_the_first_and_last_words() -> None:
    term = termhood_features(["neural", "network"])
    loose = termhood_features(["detailed", "empirical", "analysis"])
    assert set(term) == set(NAMES)
    # "detailed" stands before annotated spans far more often than it starts one.
    assert loose["th_scirex_first_starts"] < 0.5 < term["th_scirex_first_starts"]
    assert loose["th_scirex_first_in"] < term["th_scirex_first_in"]
    # "network" ends SciREX spans; every share is smoothed (never 1 on counts).
    assert 0.5 < term["th_scirex_last_ends"] < 1.0
    assert termhood_features([]) == dict.fromkeys(NAMES, 0.0)
    assert termhood_features(["qqqzzx"])["th_scierc_first_n"] == 0.0


def test_the_shipped_table_reads_back_and_feeds_acceptance_only() -> None:
    with gzip.open(ROOT / "kg/data/termhood.tsv.gz", "rt", encoding="utf-8") as fh:
        assert fh.readline().rstrip("\n").split("\t") == ["key", *COLUMNS]
    assert word_counts("scierc", "network")["inside"] > 0
    assert word_counts("scirex", "no-such-word") == dict.fromkeys(COLUMNS, 0)
    assert set(FEATURE_GROUPS["termhood"]) == set(NAMES) <= ACCEPT_ONLY
