"""How other papers name a phrase's kind (`kg.extract.type_nouns`): the builder on invented
abstracts, the features read from the shipped table."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from kg.extract.features import FEATURE_GROUPS
from kg.extract.type_nouns import KINDS, NAMES, type_noun_counts, type_noun_features

ROOT = Path(__file__).resolve().parents[1]


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("btn", ROOT / "scripts/build_type_nouns.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("text", "expected"), [
    ("We evaluate on the QuillBench benchmark.", {"quillbench": {"Dataset"}}),
    ("Verse scansion tasks are hard.", {"verse scansion": {"Task"}, "scansion": {"Task"}}),
    ("We study the problem of rhyme detection in poems.",
     {"rhyme": {"Task"}, "rhyme detection": {"Task"}}),
    ("A StanzaNet model and the MeterF score.", {"stanzanet": {"Model"},
                                                 "meterf": {"Metric"}}),
    # no stop word inside a phrase, nothing across a comma, the kind noun not in the phrase
    ("Results on the, benchmark of the methods.", {}),
])
def test_the_kind_a_phrase_stands_before(text: str, expected: dict[str, set[str]]) -> None:
    assert dict(_builder().abstract_kinds(text)) == expected


def test_papers_are_excluded_by_title_and_rare_phrases_dropped(tmp_path: Path) -> None:
    import json

    lists = tmp_path / "lists"
    lists.mkdir()
    records = [{"title": "Held Out", "abstract": "The QuillBench benchmark."},
               {"title": "One", "abstract": "The StanzaNet model."},
               {"title": "Two", "abstract": "A StanzaNet model again."}]
    with gzip.open(lists / "conf.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(records, fh)
    exclude = tmp_path / "gold.json"
    exclude.write_text(json.dumps([{"id": "g1", "title": "Held out.", "abstract": "x"}]),
                       encoding="utf-8")
    out = tmp_path / "tn.tsv.gz"
    builder = _builder()
    builder.main.__globals__["MIN_DF"] = 2
    import sys
    argv = sys.argv
    sys.argv = ["b", str(lists), str(out), "--exclude", str(exclude)]
    try:
        builder.main()
    finally:
        sys.argv = argv
    rows = gzip.decompress(out.read_bytes()).decode("utf-8").splitlines()
    assert rows == ["key\tTask\tDataset\tModel\tMethod\tMetric", "stanzanet\t0\t0\t2\t0\t0"]


def test_features_read_the_shipped_table() -> None:
    assert FEATURE_GROUPS["type_nouns"] == NAMES
    assert sum(type_noun_counts("machine translation")) > 0
    none = type_noun_features(["no such phrase anywhere"])
    assert none == dict.fromkeys(NAMES, 0.0)
    both = type_noun_features(["machine translation", "no such phrase anywhere"])
    assert sum(both[f"tn_{k}"] for k in KINDS) < 1.0
    counts = type_noun_counts("machine translation")
    assert both["tn_Task"] == counts[KINDS.index("Task")] / (sum(counts) + 1)
