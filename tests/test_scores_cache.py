"""The learned models' scores kept beside a paper's features (`kg.extract.learned.Scores`,
the parse cache's `scores` entries): a change of the thresholds decides from them, running
the models only for the groups a lower cut keeps first, and decides exactly as scoring
afresh (invented abstracts, the real pipeline and the shipped models)."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
from importlib import resources

import numpy as np
import pytest

from kg.extract import Extractor
from kg.extract.assemble import Prepared, paper_scores, prepare_paper, score_prepared
from kg.extract.assemble import scored_decisions as decisions_of
from kg.extract.cache import scores_version
from kg.extract.decisions import DecisionThresholds
from kg.extract.extractor import ParsedPaper
from kg.extract.learned import (
    MODEL_FILE,
    DecisionModel,
    FeatureTable,
    LinearModel,
    Scores,
    _shipped,
)
from kg.extract.packing import pack, unpack
from kg.types import Paper

pytestmark = pytest.mark.model

PAPERS = [
    Paper(id="a", title="Low-Rank Adapters for Speech Translation",
          abstract="We present LoRAST, a parameter-efficient fine-tuning method that inserts "
          "low-rank adapters into a wav2vec 2.0 encoder. On the CoVoST 2 and MuST-C "
          "benchmarks it matches full fine-tuning in BLEU while training 2% of the "
          "weights, and it outperforms prefix tuning and prompt tuning."),
    Paper(id="b", title="Diffusion Policies for Robot Manipulation",
          abstract="Imitation learning from demonstrations struggles with multimodal action "
          "distributions. We propose a diffusion policy that denoises action sequences "
          "with a transformer, evaluated on the RoboMimic suite and on real pick-and-place "
          "tasks, where it raises the success rate over behaviour cloning by 20 points."),
]


@pytest.fixture(scope="module")
def parsed() -> list[ParsedPaper]:
    return Extractor.load().parse(PAPERS)


@pytest.fixture(scope="module")
def model() -> DecisionModel:
    return DecisionModel.load()


def _papers(parsed: list[ParsedPaper]) -> list[tuple[dict, list, Prepared]]:
    lookup = Extractor.load()._lookup
    return [(p.original, p.fields, prepare_paper(p.fields, lookup, model_runs=True,
                                                 evidence=False)) for p in parsed]


def _count_typed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows each `DecisionModel.typed` call scores."""
    rows: list[int] = []
    typed = DecisionModel.typed

    def counting(self: DecisionModel, table: FeatureTable) -> tuple[np.ndarray, np.ndarray]:
        rows.append(len(table))
        return typed(self, table)

    monkeypatch.setattr(DecisionModel, "typed", counting)
    return rows


@pytest.mark.parametrize("accept", [0.3, 0.9, 0.0])
def test_decisions_from_earlier_scores_are_those_scored_afresh(
    parsed: list[ParsedPaper], model: DecisionModel, accept: float,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earlier = _papers(parsed)
    before = paper_scores(earlier, model)  # the model's own cut
    kept_before = [int(s.typed.sum()) for s in before]
    assert all(kept_before)
    # Through the cache's bytes, as a later build reads them.
    known = [unpack(pack(s)) for s in before]
    moved = DecisionThresholds(accept=accept)
    later = copy.deepcopy(earlier)  # the stored `Prepared`: the evidence made before
    rows = _count_typed(monkeypatch)

    def no_acceptance(self: DecisionModel, table: FeatureTable) -> np.ndarray:
        raise AssertionError("the acceptance ran again")

    monkeypatch.setattr(DecisionModel, "acceptance", no_acceptance)
    scores = paper_scores(later, model, moved, known)
    monkeypatch.undo()
    # The models typed only the rows the new cut keeps that the old one did not.
    new_rows = sum(int(((s.accept >= accept) & ~k.typed).sum())
                   for s, k in zip(scores, known, strict=True))
    assert rows == ([new_rows] if new_rows else [])
    if accept < model.accept_cut:
        assert new_rows > 0
    assert decisions_of(later, scores, model, moved) == score_prepared(
        _papers(parsed), model, moved)
    # What was typed stays typed: back at the model's cut nothing runs again.
    rows = _count_typed(monkeypatch)
    again = paper_scores(copy.deepcopy(later), model, known=scores)
    assert rows == []
    assert decisions_of(later, again, model) == score_prepared(_papers(parsed), model)


def test_scores_of_another_length_are_scored_afresh(
    parsed: list[ParsedPaper], model: DecisionModel
) -> None:
    papers = _papers(parsed)
    good = paper_scores(copy.deepcopy(papers), model)
    short = Scores.unscored(good[0].accept[:-1], model.untyped)
    scores = paper_scores(papers, model, known=[short, None])
    assert [s.accept.tobytes() for s in scores] == [s.accept.tobytes() for s in good]


def test_a_row_over_the_cut_must_be_typed(model: DecisionModel) -> None:
    scores = Scores.unscored(np.array([0.2, 0.8]), model.untyped)
    with pytest.raises(ValueError, match="no type scored"):
        model.decisions(scores, 0.5)
    other = (model.untyped + 1) % len(model.types)  # a type an unkept row never gets
    scores.type_rows(np.array([1]), np.array([other]), np.array([0.4]))
    low, high = model.decisions(scores, 0.5)
    assert (low.proposes, high.proposes) == (0.0, 0.4)
    assert high.ctype == list(model.types)[other] != low.ctype
    # A typed row under the cut decides as `decide` makes an unkept row: Concept and 0.
    low, high = model.decisions(scores, 0.9)
    assert high.proposes == 0.0 and high.ctype == list(model.types)[model.untyped]


def test_which_models_scores_are_kept() -> None:
    raw = resources.files("kg").joinpath("data", MODEL_FILE).read_bytes()
    shipped = DecisionModel.from_bytes(raw)
    assert shipped.identity == hashlib.sha256(raw).hexdigest()[:32] == _shipped().identity
    # A model made in memory (training, cross-validation) has none: nothing is kept.
    assert DecisionModel.from_json(json.loads(gzip.decompress(raw))).identity == ""
    assert scores_version("prepared", "") is None and scores_version(None, "x") is None
    one, other = scores_version("prepared", shipped.identity), scores_version("prepared", "b")
    assert one and other and one != other != scores_version("other prepared", "b")


def test_a_rows_probability_does_not_depend_on_its_batch() -> None:
    """The linear models sum each row alone: the same row in batches of other sizes, at other
    places, in either memory order, gets the same bits (a matrix product's did not)."""
    rng = np.random.default_rng(1)
    width = 167
    linear = LinearModel(tuple(f"f{i}" for i in range(width)), rng.normal(size=width),
                         rng.uniform(0.5, 2.0, size=width), rng.normal(size=width), 0.3)
    wide = rng.normal(size=(600, 300))
    x = wide[:, sorted(rng.choice(300, width, replace=False))]  # as `FeatureTable.columns`
    assert not x.flags["C_CONTIGUOUS"]
    every = linear.proba(x)[:, 1]
    for start, size in [(0, 1), (1, 2), (5, 3), (333, 7), (0, 64), (100, 100)]:
        assert linear.proba(x[start : start + size])[:, 1].tobytes() == (
            every[start : start + size].tobytes())
    picked = [7, 500, 2, 3]
    assert linear.proba(x[picked])[:, 1].tobytes() == every[picked].tobytes()
    assert linear.proba(np.ascontiguousarray(x))[:, 1].tobytes() == every.tobytes()
