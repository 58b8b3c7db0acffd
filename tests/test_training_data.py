"""The training-only annotated abstracts (kg/train/annotated; issue 16) hold to the gold files'
format and guidelines: each record is one drawn paper's, every type, role and need is one the
guidelines allow, and every concept has a surface form in its paper's title or abstract."""

from __future__ import annotations

import json
import re

import pytest

from kg.eval.cv import TRAINING_DIR
from kg.eval.graph import load_gold
from kg.normalize import norm_key
from kg.types import ConceptType, Role

# The folder's own sets and its variants in subfolders (`cv_eval.py --training SUBFOLDER`).
SETS = sorted([*TRAINING_DIR.glob("*_gold.json"), *TRAINING_DIR.glob("*/*_gold.json")])
ROLES = {r.value for r in Role}
TYPES = {t.value for t in ConceptType}


def _words(text: str) -> str:
    return " " + " ".join(norm_key(w) for w in re.split(r"[^\w]+", text) if w) + " "


def test_there_is_training_data() -> None:
    assert SETS, TRAINING_DIR


@pytest.mark.parametrize("gold_path", SETS, ids=lambda p: str(p.relative_to(TRAINING_DIR)))
def test_each_record_is_one_drawn_papers_with_allowed_values(gold_path) -> None:  # type: ignore[no-untyped-def]
    papers = json.loads(gold_path.with_name(
        gold_path.name.replace("_gold.json", "_papers.json")).read_text(encoding="utf-8"))
    records = json.loads(gold_path.read_text(encoding="utf-8"))["papers"]
    by_id = {p["id"]: p for p in papers}
    assert len(by_id) == len(papers) == len(records)
    assert len(load_gold(gold_path)) == len(records)
    missing = []
    for record in records:
        paper = by_id[record["id"]]
        assert record["abstract_start"] == paper["abstract"][:80]
        text = _words(paper["title"] + " " + paper["abstract"])
        labels = [norm_key(c["label"]) for c in record["concepts"]]
        assert len(labels) == len(set(labels)), record["id"]
        for concept in record["concepts"]:
            assert set(concept["types"]) <= TYPES and concept["types"], concept
            assert concept["role"] in ROLES and concept["need"] in ("must", "ok"), concept
            forms = [concept["label"], *concept["aliases"]]
            if not any(_words(form) in text for form in forms):
                missing.append((record["id"], concept["label"]))
    assert not missing
