"""The annotated span types the learned decisions read (SciERC/TDMSci counts): the builder on
invented files, the shipped table read back."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest

from kg.extract.features import FEATURE_GROUPS
from kg.extract.span_types import COLUMNS, head_types, span_types

ROOT = Path(__file__).resolve().parents[1]


def test_span_types_are_counted_per_span_and_per_last_word(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bst", ROOT / "scripts/build_span_types.py")
    assert spec is not None and spec.loader is not None
    bst = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bst)
    conll = tmp_path / "t.conll"
    conll.write_text("We\t0\tO\nstudy\t3\tO\ndependency\t9\tB-TASK\nparsing\t20\tI-TASK\n"
                     "on\t28\tO\nFooBank\t31\tB-DATASET\n\nAccuracy\t0\tB-METRIC\n",
                     encoding="utf-8")
    spans = list(bst.tdmsci_spans(conll))
    assert spans == [("dependency parsing", "Task"), ("FooBank", "Dataset"),
                     ("Accuracy", "Metric")]
    found = bst.tables(iter([*spans, ("constituency parsing", "Task"),
                             ("parsing", "Method"), ("this approach", "generic")]))
    assert found["h:parsing"] == {"Task": 2}
    assert found["p:parsing"] == {"Method": 1}
    assert found["h:approach"] == {"generic": 1}
    bad = tmp_path / "bad.conll"
    bad.write_text("x\t0\tB-PERSON\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad\.conll: line 1: unknown tag"):
        list(bst.tdmsci_spans(bad))


def test_the_shipped_span_types_read_back() -> None:
    with gzip.open(ROOT / "kg/data/span_types.tsv.gz", "rt", encoding="utf-8") as fh:
        assert fh.readline().rstrip("\n").split("\t") == ["key", *COLUMNS]
    assert sum(span_types("machine translation")) > 0
    tasks = dict(zip(COLUMNS, head_types("parsing"), strict=True))
    assert tasks["Task"] > tasks["Method"]
    assert span_types("no such span anywhere") == (0,) * len(COLUMNS)
    assert {f"ann_head_{c}" for c in COLUMNS} <= set(FEATURE_GROUPS["annotated"])
