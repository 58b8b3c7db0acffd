"""Training the learned extraction decisions (`kg.extract.learned`) from gold annotations.

Each candidate group of a gold paper is one example: accepted when one of its labels matches
a gold concept of the paper (must or ok, as `kg eval` counts precision), with that concept's
acceptable types (`kg eval` counts a type right when it is any of them), `proposes` when the
gold role is. The type is decided by models per type ("is this type acceptable for it?": the
mean of the trees' and a logistic regression's probability), so the choice is the type most
likely to be right, not the most likely first choice. scikit-learn's
HistGradientBoostingClassifier learns each decision (fixed `random_state`, so retraining on
the same data gives the same file); `export_ensemble` writes its trees as plain JSON.
`proposes` is also learnt by a logistic regression (its regularisation chosen by grouped
cross-validation inside the training papers) and decided by the mean of the two models, from
a cut chosen the same way (the one with the best F1 of precision and recall: with about one
contribution in eight concepts, 0.5 keeps too few). In learning `proposes`, the groups that
match one gold concept of a paper share one unit of weight (`concept_weights`), as `kg eval`
counts the concept once.

Needs scikit-learn (a test/training dependency, not a run-time one).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg.extract.decisions import DEFAULT_THRESHOLDS
from kg.extract.features import FEATURE_GROUPS
from kg.extract.learned import FORMAT, STACK_NAMES, OccurrenceSpans, stack_features
from kg.extract.mentions import overlap_level
from kg.types import ConceptType

# Chosen once from general practice for a few thousand tabular examples, not tuned on the
# cross-validation figures: shallow trees, a small learning rate, mild regularisation.
PARAMS: dict[str, Any] = {
    "max_iter": 100,
    "learning_rate": 0.08,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 10,
    "l2_regularization": 1.0,
    "random_state": 0,
}
MUST_WEIGHT = 2.0  # a `must` concept counts twice an `ok` one when learning acceptance
# Acceptance in two stages (`train(stack=...)`), from the cut learned inside the training
# papers (`accept_cut`). Off until session 29: at a fixed cut it mainly added recall
# (0.852 -> 0.874 once) and lost type accuracy (-0.004 at 0.5); that loss is the added,
# harder concepts, each concept both versions find keeps its type (docs/QUALITY.md).
# `cv_eval.py --ablation` has a row.
SECOND_STAGE = True
# The learners whose mean probability decides `proposes`: trees alone rank the few hundred
# contributions worse than with a linear model beside them (CHANGELOG.md).
PROPOSES_LEARNERS: tuple[str, ...] = ("trees", "linear")
# The learners whose mean probability says whether a type is acceptable. The trees alone
# typed worse: paired over 3 dealings, type accuracy +0.008 with the linear model beside
# them (docs/QUALITY.md); the linear model alone typed worse than the trees.
TYPE_LEARNERS: tuple[str, ...] = ("trees", "linear")
# The type models' linear regularisation, fixed (not chosen per training as `proposes`' is:
# each of six models would need its own inner cross-validation). Screened out of fold,
# 0.01, 0.05 and 0.2 typed alike (within 0.001).
TYPE_LINEAR_C = 0.05
# The regularisation strengths the linear model chooses among (`STACK_FOLDS` inner grouped
# folds, average precision).
LINEAR_CS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3)
# Features only the type models read: how other abstracts name a phrase's kind says what it
# is, not whether this paper has it or proposes it (fed to acceptance as well, must-recall
# fell by 0.013 on one dealing of three; CHANGELOG.md); likewise which types annotators of
# other papers gave to spans next to the same words (`context_types`).
TYPE_ONLY: frozenset[str] = frozenset(
    (*FEATURE_GROUPS["type_nouns"], *FEATURE_GROUPS["context_types"]))
# Features only acceptance reads: how a candidate compares with the candidates it nests in
# or contains says where the concept's boundaries are, not what it is or whether the paper
# introduces it (`kg.extract.overlaps`; CHANGELOG.md).
ACCEPT_ONLY: frozenset[str] = frozenset((*FEATURE_GROUPS["overlaps"], *FEATURE_GROUPS["termhood"]))
# The proposes cuts training chooses among (`_proposes_cut`).
PROPOSES_CUTS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
# The acceptance cuts training chooses among (`accept_cut`).
ACCEPT_CUTS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)
# Learn `proposes` with the groups of one (paper, gold concept) sharing one unit of weight
# (`concept_weights`): `kg eval` counts a contribution once however many ways the paper
# writes it. Paired over 3 dealings: proposes R +0.018 ± 0.030, P +0.003 ± 0.014, the other
# figures unchanged (the type models weighted so too: type -0.002; CHANGELOG.md).
PROPOSES_BY_CONCEPT = True


@dataclass(frozen=True, slots=True)
class Example:
    """One candidate group with its gold answer (`ctypes`/`proposes` only when `matched`):
    `ctypes` the acceptable types, best first."""

    features: dict[str, float]
    matched: bool
    must: bool
    ctypes: tuple[ConceptType, ...]
    proposes: bool
    # Where it comes from, for the second stage of acceptance: the paper, its group of
    # papers (conference file), its key and the spans of its occurrences.
    paper: str = ""
    group: str = ""
    key: str = ""
    spans: OccurrenceSpans = ()
    # The gold concept it matches (its label; "" when none): the groups of one concept
    # share one unit of weight when learning `proposes` (`concept_weights`).
    concept: str = ""


def export_ensemble(model: Any, features: Sequence[str]) -> dict[str, Any]:
    """A fitted HistGradientBoostingClassifier as the JSON `TreeEnsemble.from_json` reads."""
    nodes: dict[str, list[Any]] = {k: [] for k in
                                   ("feature", "threshold", "left", "right", "missing_left",
                                    "leaf", "value")}
    roots: list[int] = []
    outputs: list[int] = []
    depth = 0
    for iteration in model._predictors:
        for k, predictor in enumerate(iteration):
            offset = len(nodes["feature"])
            roots.append(offset)
            outputs.append(k)
            for node in predictor.nodes:
                leaf = bool(node["is_leaf"])
                nodes["feature"].append(int(node["feature_idx"]))
                nodes["threshold"].append(float(node["num_threshold"]))
                nodes["left"].append(int(node["left"]) + offset if not leaf else 0)
                nodes["right"].append(int(node["right"]) + offset if not leaf else 0)
                nodes["missing_left"].append(bool(node["missing_go_to_left"]))
                nodes["leaf"].append(leaf)
                nodes["value"].append(round(float(node["value"]), 8) if leaf else 0.0)
                depth = max(depth, int(node["depth"]))
    return {
        "features": list(features),
        "classes": [str(c) for c in model.classes_],
        "baseline": [float(v) for v in np.ravel(model._baseline_prediction)],
        "roots": roots,
        "outputs": outputs,
        "depth": depth,
        "nodes": nodes,
    }


def export_linear(model: Any, features: Sequence[str]) -> dict[str, Any]:
    """A fitted StandardScaler + LogisticRegression pipeline as the JSON
    `LinearModel.from_json` reads."""
    scaler, logistic = model[0], model[-1]
    return {
        "kind": "linear",
        "features": list(features),
        "mean": [round(float(v), 10) for v in scaler.mean_],
        "scale": [round(float(v), 10) for v in scaler.scale_],
        "coef": [round(float(v), 10) for v in np.ravel(logistic.coef_)],
        "intercept": round(float(np.ravel(logistic.intercept_)[0]), 10),
    }


def _linear(x: np.ndarray, y: np.ndarray, c: float, w: np.ndarray | None = None) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
    return model.fit(x, y, logisticregression__sample_weight=w)


def concept_weights(examples: Sequence[Example]) -> np.ndarray:
    """Each example's weight when the groups of one (paper, gold concept) share one unit: a
    concept a paper writes in five ways (a long form, its acronym, a plural ...) weighs as
    much as one written once. A group matching no gold concept weighs 1."""
    counts = Counter((e.paper, e.concept) for e in examples if e.concept)
    return np.asarray([1.0 / counts[e.paper, e.concept] if e.concept else 1.0
                       for e in examples])


def _inner_folds(groups: Sequence[str], y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) of `STACK_FOLDS` folds of whole groups (dealt by sorted
    name), keeping those whose both sides hold both classes."""
    names = sorted(set(groups))
    fold = np.asarray([names.index(g) % STACK_FOLDS for g in groups])
    found = [(np.flatnonzero(fold != i), np.flatnonzero(fold == i))
             for i in range(min(STACK_FOLDS, len(names)))]
    return [(tr, te) for tr, te in found if 0 < y[tr].sum() < len(tr) and y[te].any()]


def _linear_strength(x: np.ndarray, y: np.ndarray, groups: Sequence[str],
                     w: np.ndarray | None = None) -> float:
    """The regularisation (`LINEAR_CS`) with the best average precision in grouped
    cross-validation inside the given examples (too few groups: the middle one)."""
    from sklearn.metrics import average_precision_score

    folds = _inner_folds(groups, y)
    best, best_c = -1.0, LINEAR_CS[len(LINEAR_CS) // 2]
    if len(folds) >= 2:
        for c in LINEAR_CS:
            score = float(np.mean([average_precision_score(
                y[te], _linear(x[tr], y[tr], c, _rows(w, tr)).predict_proba(x[te])[:, 1],
                sample_weight=_rows(w, te))
                for tr, te in folds]))
            if score > best + 1e-9:
                best, best_c = score, c
    return best_c


def _rows(w: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if w is None else w[rows]


def _proposes_cut(x: np.ndarray, y: np.ndarray, groups: Sequence[str],
                  learners: Sequence[str], linear_c: float, seed: int,
                  w: np.ndarray | None = None) -> float:
    """The cut of `PROPOSES_CUTS` with the best F1 on out-of-fold probabilities of the
    learners' mean (grouped folds inside the given examples; ties: the higher cut; too
    few groups: 0.5)."""
    folds = _inner_folds(groups, y)
    if len(folds) < 2:
        return 0.5
    rows = np.concatenate([te for _, te in folds])
    proba = np.zeros(len(y))
    for tr, te in folds:
        proba[te] = np.mean([
            (_fit(x[tr], y[tr], _rows(w, tr), seed=seed) if learner == "trees"
             else _linear(x[tr], y[tr], linear_c, _rows(w, tr))).predict_proba(x[te])[:, 1]
            for learner in learners], axis=0)
    weight = np.ones(len(y)) if w is None else w

    def f1(cut: float) -> float:
        chosen = (proba[rows] >= cut) * weight[rows]
        right = float((chosen * (y[rows] == 1)).sum())
        return 2 * right / (chosen.sum() + (weight[rows] * y[rows]).sum())

    return max(reversed(PROPOSES_CUTS), key=f1)


def _fit(x: np.ndarray, y: Sequence[Any] | np.ndarray,
         weights: Sequence[float] | np.ndarray | None = None,
         seed: int = 0) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(**{**PARAMS, "random_state": seed})
    model.fit(x, np.asarray(y), sample_weight=None if weights is None else np.asarray(weights))
    return model


def train(
    examples: Sequence[Example], features: Sequence[str], *, trained_on: str = "",
    stack: bool = SECOND_STAGE, seed: int = 0,
    proposes_learners: Sequence[str] = PROPOSES_LEARNERS, learn_cut: bool = True,
    by_concept: bool = PROPOSES_BY_CONCEPT, learn_accept_cut: bool = True,
    must_counts: Mapping[str, int] | None = None,
    type_learners: Sequence[str] = TYPE_LEARNERS,
) -> dict[str, Any]:
    """The models as one JSON document (see `kg.extract.learned`): accept, a list per type
    seen acceptable in training (a type never or always acceptable gets none), proposes;
    with `stack`, a second stage of acceptance (`accept2`) over the features and what the
    first stage, trained out of fold on other groups of papers, says of each group and of
    those it nests in (`kg.extract.learned.stack_features`). `seed`: the learners' random
    state (0 for the shipped model; other seeds measure how much the figures move);
    `proposes_learners`: "trees" and/or "linear", whose mean decides `proposes`, from the
    cut `_proposes_cut` chooses (`learn_cut`; else 0.5); `by_concept`: in learning
    `proposes` (and its regularisation and cut), the groups of one (paper, gold concept)
    share one unit of weight (`concept_weights`); `learn_accept_cut`: the acceptance cut is
    learned from the out-of-fold acceptance of the training papers (`accept_cut`, with
    `must_counts`, each paper's number of gold must concepts; else 0.5). Both need papers
    of two groups or more (`Example.group`); with one, acceptance has one stage and the cut
    0.5. `type_learners`: "trees" and/or "linear", whose mean says whether a type is
    acceptable."""
    given = list(features)
    x_given = np.asarray([[e.features.get(n, 0.0) for n in given] for e in examples],
                         dtype=float)

    def columns(left_out: frozenset[str]) -> tuple[list[str], np.ndarray]:
        kept = [i for i, n in enumerate(given) if n not in left_out]
        return [given[i] for i in kept], x_given[:, kept]

    # Acceptance reads every feature but the type models' own (`TYPE_ONLY`); the type
    # models every feature but acceptance's own (`ACCEPT_ONLY`); proposes neither.
    accept_names, x_accept = columns(TYPE_ONLY)
    all_names, x_all = columns(ACCEPT_ONLY)
    names, x = columns(TYPE_ONLY | ACCEPT_ONLY)
    weights = [MUST_WEIGHT if e.must else 1.0 for e in examples]
    accept = _fit(x_accept, [int(e.matched) for e in examples], weights, seed)
    second = {}
    # Learning the cut and a second stage need out-of-fold estimates, so papers of two
    # groups or more (with one: one stage, cut 0.5).
    several = len({e.group for e in examples}) >= 2
    stack, learn_accept_cut = stack and several, learn_accept_cut and several
    held_out = (_out_of_fold(x_accept, examples, weights, seed)
                if stack or learn_accept_cut else np.zeros(0))
    if stack:
        x_second = np.hstack([x_accept, _stacked(examples, held_out)])
        second["accept2"] = export_ensemble(
            _fit(x_second, [int(e.matched) for e in examples], weights, seed),
            [*accept_names, *STACK_NAMES])
        if learn_accept_cut:
            # The second stage out of fold: its own model without each inner fold (over the
            # first stage's out-of-fold estimates already computed, as it is trained).
            held_out = _out_of_fold(x_second, examples, weights, seed)
    for what, learners in (("proposes", proposes_learners), ("type", type_learners)):
        unknown = set(learners) - {"trees", "linear"}
        if unknown or not learners:
            raise ValueError(f"unknown {what} learner {sorted(unknown)} (trees, linear)")
    typed = [i for i, e in enumerate(examples) if e.matched and e.ctypes]
    types = {}
    for ctype in ConceptType:
        y = np.asarray([int(ctype in examples[i].ctypes) for i in typed])
        if 0 < y.sum() < len(y):
            types[ctype.value] = [
                export_ensemble(_fit(x_all[typed], y, seed=seed), all_names)
                if learner == "trees" else
                export_linear(_linear(x_all[typed], y, TYPE_LINEAR_C), all_names)
                for learner in type_learners]
    proposes_y = np.asarray([int(examples[i].proposes) for i in typed])
    groups = [examples[i].group for i in typed]
    w = concept_weights([examples[i] for i in typed]) if by_concept else None
    linear_c = (_linear_strength(x[typed], proposes_y, groups, w)
                if "linear" in proposes_learners else 0.0)
    proposes = [export_ensemble(_fit(x[typed], proposes_y, w, seed=seed), names)
                if learner == "trees" else
                export_linear(_linear(x[typed], proposes_y, linear_c, w), names)
                for learner in proposes_learners]
    return {
        "format": FORMAT,
        "trained_on": trained_on,
        "accept": export_ensemble(accept, accept_names),
        "types": types,
        "proposes": proposes,
        "proposes_cut": (_proposes_cut(x[typed], proposes_y, groups, proposes_learners,
                                       linear_c, seed, w) if learn_cut else 0.5),
        "accept_cut": (accept_cut(examples, held_out, must_counts) if learn_accept_cut
                       else 0.5),
        **second,
    }


STACK_FOLDS = 4  # inner folds (grouped by `Example.group`) for the first stage's estimates


def inner_folds(examples: Sequence[Example]) -> np.ndarray:
    """The inner fold (of `STACK_FOLDS`) of each example: its group's, groups dealt round-robin
    in sorted order."""
    groups = sorted({e.group for e in examples})
    fold_of = {g: i % STACK_FOLDS for i, g in enumerate(groups)}
    return np.asarray([fold_of[e.group] for e in examples], dtype=int)


def _out_of_fold(x: np.ndarray, examples: Sequence[Example],
                 weights: Sequence[float], seed: int = 0) -> np.ndarray:
    """The first stage's acceptance of each example by a model trained without its group."""
    if len({e.group for e in examples}) < 2:
        raise ValueError("a second stage needs examples from two groups of papers or more")
    fold = inner_folds(examples)
    y = np.asarray([int(e.matched) for e in examples])
    w = np.asarray(weights)
    proba = np.zeros(len(examples))
    for i in sorted(set(fold.tolist())):
        test = fold == i
        proba[test] = _fit(x[~test], y[~test], w[~test], seed).predict_proba(x[test])[:, 1]
    return proba


def accept_cut(examples: Sequence[Example], proba: np.ndarray,
               must_counts: Mapping[str, int] | None = None) -> float:
    """The acceptance cut of `ACCEPT_CUTS`, from the examples' out-of-fold probability
    `proba`: the lowest cut whose F1 of must-recall and precision, averaged over the inner
    folds (`inner_folds`), is within one standard error of the best cut's (the standard
    error of the fold-by-fold difference; the "one-standard-error rule"). With one fold, the
    best cut (ties: the higher).

    F1 is counted by concept as `kg eval` counts it: where accepted groups of a paper
    overlap, the occurrences `kg.extract.assemble` keeps survive (`surviving`; a group left
    without occurrences is no concept); a gold concept of a paper is found when one of its
    surviving groups matches it; recall is over the paper's must concepts, `must_counts[paper]`
    of them (the gold's, those no candidate matches included; by default the must concepts
    some example matches) and precision is the found concepts over those plus the surviving
    groups matching none. No must concept to find: 0.5.

    Why the lowest within one error: F1 is flat near its best (between 0.6 and 0.75 for the
    shipped model, a few thousandths apart, less than the folds' disagreement), and where
    the data cannot tell the cuts apart the graph should keep the concept: one missed is
    found by no query, one spurious is seen and can be rejected (`kg review`, corrections).
    Taking the best F1 alone chose 0.7 and gave must-recall 0.827 at precision 0.816
    (cross-validated, session 29; docs/QUALITY.md)."""
    scores = accept_curve(examples, proba, must_counts)
    if not scores:
        return 0.5
    best = max(reversed(ACCEPT_CUTS), key=lambda cut: float(scores[cut].mean()))
    if len(scores[best]) < 2:
        return best
    for cut in ACCEPT_CUTS:  # ascending: the lowest within one standard error
        diff = scores[cut] - scores[best]
        if diff.mean() >= -diff.std(ddof=1) / np.sqrt(len(diff)):
            return cut
    return best


def accept_curve(examples: Sequence[Example], proba: np.ndarray,
                 must_counts: Mapping[str, int] | None = None) -> dict[float, np.ndarray]:
    """F1 of must-recall and precision inner fold by inner fold (`inner_folds`) at each cut of
    `ACCEPT_CUTS`, counted as `accept_cut` says (empty: no must concept to find)."""
    by_paper: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        by_paper.setdefault(e.paper, []).append(i)
    fold = inner_folds(examples)
    fold_of_paper = {examples[rows[0]].paper: int(fold[rows[0]]) for rows in by_paper.values()}
    must = {(e.paper, e.concept) for e in examples if e.concept and e.must}
    if not must:
        return {}
    covered = Counter(paper for paper, _ in must)
    needed = {paper: max(covered[paper], (must_counts or {}).get(paper, 0))
              for paper in by_paper}
    folds = sorted(set(fold_of_paper.values()))
    totals = Counter[int]()  # must concepts to find, by fold
    for paper, f in fold_of_paper.items():
        totals[f] += needed[paper]

    def f1(cut: float) -> list[float]:
        found: dict[int, set[tuple[str, str]]] = {f: set() for f in folds}
        spurious = Counter[int]()
        for paper, rows in by_paper.items():
            f = fold_of_paper[paper]
            for i in surviving(examples, proba, rows, cut):
                if examples[i].concept:
                    found[f].add((paper, examples[i].concept))
                else:
                    spurious[f] += 1
        out = []
        for f in folds:
            recall = len(found[f] & must) / totals[f] if totals[f] else 0.0
            hits = len(found[f])
            precision = hits / (hits + spurious[f]) if hits or spurious[f] else 0.0
            out.append(2 * recall * precision / (recall + precision)
                       if recall + precision else 0.0)
        return out

    return {cut: np.asarray(f1(cut)) for cut in ACCEPT_CUTS}


def surviving(examples: Sequence[Example], proba: np.ndarray, rows: Sequence[int],
              cut: float) -> list[int]:
    """The rows (examples of one paper) accepted at `cut` that keep an occurrence where
    their spans overlap, as `kg.extract.mentions` resolves them: the higher `overlap_level`
    (a name half a step higher), then the longer span."""
    step = DEFAULT_THRESHOLDS.overlap_step
    spans = sorted((-overlap_level(float(proba[i]), step,
                                   named=bool(examples[i].features.get("kind_name"))),
                    -(end - start), start, field, end, i)
                   for i in rows if proba[i] >= cut
                   for field, start, end in examples[i].spans)
    taken: dict[str, list[tuple[int, int]]] = {}
    alive: set[int] = set()
    for _, _, start, field, end, i in spans:
        kept = taken.setdefault(field, [])
        if not any(start < e and s < end for s, e in kept):
            kept.append((start, end))
            alive.add(i)
    return sorted(alive)


def _stacked(examples: Sequence[Example], proba: np.ndarray) -> np.ndarray:
    """The `STACK_NAMES` columns of each example, paper by paper."""
    by_paper: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        by_paper.setdefault(e.paper, []).append(i)
    out = np.zeros((len(examples), len(STACK_NAMES)))
    for rows in by_paper.values():
        found = stack_features({examples[i].key: examples[i].spans for i in rows},
                               {examples[i].key: float(proba[i]) for i in rows})
        for i in rows:
            out[i] = [found[examples[i].key][n] for n in STACK_NAMES]
    return out


def write_model(model: dict[str, Any], path: str | Path) -> None:
    """Write the model as gzipped JSON, byte-identical for the same model (mtime 0)."""
    text = json.dumps(model, sort_keys=True, separators=(",", ":")).encode("utf-8")
    Path(path).write_bytes(gzip.compress(text, mtime=0))

