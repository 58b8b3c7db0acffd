"""The type evidence (`kg.extract.features.TYPE_EVIDENCE`) is made only for the groups the
acceptance keeps, and the decisions are those of making it for every group (invented
abstracts, the real pipeline and the shipped models)."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest

from kg.extract import Extractor
from kg.extract.assemble import (
    Prepared,
    decide_prepared,
    evidence_first,
    prepare_paper,
    score_prepared,
)
from kg.extract.decisions import DecisionThresholds
from kg.extract.extractor import ParsedPaper, _pack, _unpack
from kg.extract.features import TYPE_EVIDENCE
from kg.extract.learned import DecisionModel
from kg.types import Paper

pytestmark = pytest.mark.model

PAPERS = [
    Paper(id="a", title="Sparse Routing Transformers for Long Document Summarization",
          abstract="We introduce SparseRouter, a mixture-of-experts transformer that routes "
          "each token to two experts. Trained with contrastive learning on the arXiv and "
          "PubMed datasets, it outperforms Longformer and BigBird on abstractive "
          "summarization, measured by ROUGE-L, while using half the memory."),
    Paper(id="b", title="Graph Neural Networks Meet Retrieval",
          abstract="Retrieval-augmented generation grounds language models in documents. "
          "We propose a graph neural network retriever that encodes citation graphs with "
          "message passing and improves open-domain question answering on Natural "
          "Questions and TriviaQA by 4 points of exact match."),
]


@pytest.fixture(scope="module")
def parsed() -> list[ParsedPaper]:
    extractor = Extractor.load()
    return extractor.parse(PAPERS)


@pytest.fixture(scope="module")
def model() -> DecisionModel:
    return DecisionModel.load()


def _prepared(parsed: list[ParsedPaper], evidence: bool) -> list[Prepared]:
    extractor = Extractor.load()
    return [prepare_paper(p.fields, extractor._lookup, model_runs=True, evidence=evidence)
            for p in parsed]


def _rows(prepared: Prepared) -> dict[str, np.ndarray]:
    return dict(zip(prepared.cands.groups, prepared.features.values, strict=True))


def _with_evidence(prepared: Prepared) -> set[str]:
    assert prepared.evidence is not None
    return {k for k, has in zip(prepared.cands.groups, prepared.evidence, strict=True) if has}


def test_the_shipped_acceptance_reads_no_type_evidence(model: DecisionModel) -> None:
    assert not evidence_first(model)
    assert set(TYPE_EVIDENCE) <= {n for models in model.types.values() for m in models
                                  for n in m.features}


@pytest.mark.parametrize("accept", [None, 0.3, 0.9])
def test_kept_groups_get_the_evidence_every_group_would_have(
    parsed: list[ParsedPaper], model: DecisionModel, accept: float | None
) -> None:
    thresholds = DecisionThresholds(accept=accept)
    eager, lazy = _prepared(parsed, True), _prepared(parsed, False)
    assert all(p.evidence is None for p in eager)
    assert not any(p.evidence.any() for p in lazy)  # type: ignore[union-attr]
    columns = [eager[0].features.names.index(n) for n in TYPE_EVIDENCE]
    assert any(_rows(p)[k][columns].any() for p in eager for k in p.cands.groups)
    assert not any(p.features.values[:, columns].any() for p in lazy)

    papers = [(p.original, p.fields, prepared) for p, prepared in zip(parsed, lazy, strict=True)]
    scored = score_prepared(papers, model, thresholds)
    cut = model.accept_cut if accept is None else accept
    for prepared, full, decided in zip(lazy, eager, scored, strict=True):
        kept = {k for k, d in decided.items() if d.accept >= cut}
        assert _with_evidence(prepared) == kept
        made, every = _rows(prepared), _rows(full)
        for key in prepared.cands.groups:
            if key in kept:  # the same floats, bit for bit
                assert made[key].tobytes() == every[key].tobytes()
            else:
                assert not made[key][columns].any()
    # The decisions and mentions are those of evidence for every group.
    lazy_again = _prepared(parsed, False)
    assert [[repr(m) for m in ms] for ms in decide_prepared(
        [(p.original, p.fields, q) for p, q in zip(parsed, lazy_again, strict=True)],
        model, thresholds)] == [[repr(m) for m in ms] for ms in decide_prepared(
            [(p.original, p.fields, q) for p, q in zip(parsed, eager, strict=True)],
            model, thresholds)]


def test_a_stored_prepared_entry_keeps_the_evidence_made(
    parsed: list[ParsedPaper], model: DecisionModel
) -> None:
    lazy = _prepared(parsed, False)
    score_prepared([(p.original, p.fields, q) for p, q in zip(parsed, lazy, strict=True)],
                   model)
    _, back = _unpack(_pack(replace(parsed[0], parses=[]), lazy[0]))
    assert _with_evidence(back) == _with_evidence(lazy[0]) != set()
    assert back.features.values.tobytes() == lazy[0].features.values.tobytes()
    # A lower cut later makes only what is missing, as the first time would have.
    again = copy.deepcopy(back)
    score_prepared([(parsed[0].original, parsed[0].fields, again)], model,
                   DecisionThresholds(accept=0.0))
    assert _with_evidence(again) == set(again.cands.groups)
    every = _prepared(parsed[:1], True)[0]
    assert again.features.values.tobytes() == every.features.values.tobytes()


def test_an_acceptance_reading_type_evidence_gets_it_for_every_group(
    parsed: list[ParsedPaper], model: DecisionModel
) -> None:
    reads = replace(model.accept, features=(*model.accept.features[:-1], TYPE_EVIDENCE[0]))
    needs = replace(model, accept=reads)
    assert evidence_first(needs)
    lazy = _prepared(parsed, False)
    scored = score_prepared([(p.original, p.fields, q)
                             for p, q in zip(parsed, lazy, strict=True)], needs)
    assert [_with_evidence(p) for p in lazy] == [set(p.cands.groups) for p in lazy]
    eager = _prepared(parsed, True)
    assert scored == score_prepared([(p.original, p.fields, q)
                                     for p, q in zip(parsed, eager, strict=True)], needs)


def test_a_batch_of_entries_with_and_without_evidence(
    parsed: list[ParsedPaper], model: DecisionModel
) -> None:
    eager, lazy = _prepared(parsed, True), _prepared(parsed, False)
    mixed = [eager[0], lazy[1]]
    scored = score_prepared([(p.original, p.fields, q)
                             for p, q in zip(parsed, mixed, strict=True)], model)
    assert mixed[0].evidence is None
    assert _with_evidence(mixed[1]) == {k for k, d in scored[1].items()
                                        if d.accept >= model.accept_cut} != set()
    for key, row in _rows(mixed[1]).items():
        if key in _with_evidence(mixed[1]):
            assert row.tobytes() == _rows(eager[1])[key].tobytes()
