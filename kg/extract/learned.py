"""The learned decisions: gradient-boosted trees (and a linear model) over
`kg.extract.features`, read from JSON.

Models decide for each candidate group of a paper: is it a concept of the paper (accept),
which type (per type, is this type acceptable for it: the mean of a tree ensemble's and a
logistic regression's probabilities; the most probable type wins), and is it the paper's own
contribution (proposes: the mean of a tree ensemble's and a logistic regression's
probabilities — with a few hundred contributions to learn from, the linear model ranks them
better than the trees alone; beside the trees it types better too). They are trained by
`kg.train.decisions` (scikit-learn's HistGradientBoostingClassifier and LogisticRegression,
`make train-decisions`) and shipped as plain JSON (`kg/data/decisions.json.gz`): node arrays of
every tree and the linear model's weights, evaluated here with numpy. Plain data rather than
a pickle: loading runs no code from the file, needs no scikit-learn at run time, and the file
diffs and reviews like any other data.

The trees are evaluated the QuickScorer way (Lucchese et al., SIGIR 2015), in numpy over
blocks of candidates: every distinct test of the ensemble's splits (trees share many) is
computed once for all candidates of the block, each true test (the sample goes right) clears
the bits of its left subtree's leaves in its tree's leaf mask, and the lowest bit left is the
sample's leaf (`_Scorer`). The splits are laid out split-major (the i-th split of every tree
in one row), so the masks of a block are one (splits, trees, samples) array and-reduced over
its first axis. That is a few dense array operations per block instead of a step of random
lookups per tree level: the shipped model's nine ensembles over 40,000 rows take 0.84 s,
against 4.7 s by the level walk and 4.5 s with session 35's tree-major layout, whose every
split was a test of its own (`scripts/bench_scorer.py`; issue 14: a rule change runs the
models over every candidate of the corpus again). Trees of more than 64 leaves are walked
level by level (`TreeEnsemble.raw_by_levels`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kg.errors import ModelError
from kg.types import ConceptType

MODEL_FILE = "decisions.json.gz"
FORMAT = "paperkg-decisions/3"


@dataclass(frozen=True, slots=True)
class TreeEnsemble:
    """A boosted tree ensemble: raw score = baseline + sum of its trees' leaves, per output.

    One output (a binary model: probability = logistic of the score) or one per class (a
    multi-class model: softmax over the outputs).
    """

    features: tuple[str, ...]
    classes: tuple[str, ...]
    baseline: npt.NDArray[np.float64]  # (outputs,)
    roots: npt.NDArray[np.int64]  # (trees,) node index of each tree's root
    outputs: npt.NDArray[np.int64]  # (trees,) which output each tree adds to
    feature: npt.NDArray[np.int64]  # (nodes,)
    threshold: npt.NDArray[np.float64]
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]
    missing_left: npt.NDArray[np.bool_]
    leaf: npt.NDArray[np.bool_]
    value: npt.NDArray[np.float64]
    depth: int
    scorer: _Scorer | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scorer", _Scorer.of(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeEnsemble:
        """Read the dict written by `kg.train.decisions.export_ensemble`."""
        nodes = data["nodes"]
        leaf = np.asarray(nodes["leaf"], dtype=np.bool_)
        # A leaf points to itself, so that walking every tree a fixed number of steps leaves
        # each sample at its leaf whatever the tree's depth.
        own = np.arange(len(leaf), dtype=np.int64)
        left = np.where(leaf, own, np.asarray(nodes["left"], dtype=np.int64))
        right = np.where(leaf, own, np.asarray(nodes["right"], dtype=np.int64))
        return cls(
            features=tuple(data["features"]),
            classes=tuple(data["classes"]),
            baseline=np.asarray(data["baseline"], dtype=np.float64),
            roots=np.asarray(data["roots"], dtype=np.int64),
            outputs=np.asarray(data["outputs"], dtype=np.int64),
            feature=np.asarray(nodes["feature"], dtype=np.int64),
            threshold=np.asarray(nodes["threshold"], dtype=np.float64),
            left=left,
            right=right,
            missing_left=np.asarray(nodes["missing_left"], dtype=np.bool_),
            leaf=leaf,
            value=np.asarray(nodes["value"], dtype=np.float64),
            depth=int(data["depth"]),
        )

    def raw(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Raw scores, (samples, outputs)."""
        if self.scorer is None:
            return self.raw_by_levels(x)
        return self._scores(self.scorer.leaf_values(x))

    def raw_by_levels(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """`raw` by walking the trees: every (sample, tree) pair walks down one level per
        step; pairs that reached a leaf drop out of the walk."""
        return self._scores(self._walked_leaves(x))

    def _scores(self, leaves: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Raw scores from the value of the leaf each sample reaches in each tree."""
        out = np.tile(self.baseline, (len(leaves), 1))
        for k in range(len(self.baseline)):
            out[:, k] += leaves[:, self.outputs == k].sum(axis=1)
        return out

    def _walked_leaves(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The value of the leaf each sample reaches in each tree, (samples, trees), by the
        level-by-level walk."""
        n, width = x.shape
        trees = len(self.roots)
        node = np.tile(self.roots, n)  # the (sample, tree) pairs, sample-major
        offset = np.repeat(np.arange(n, dtype=np.int64) * width, trees)
        children = np.stack([self.left, self.right], axis=1).ravel()
        flat = x.ravel()
        missing = bool(np.isnan(x).any())
        active = np.flatnonzero(~self.leaf[node])
        for _ in range(self.depth):
            if not len(active):
                break
            at = node[active]
            values = flat[offset[active] + self.feature[at]]
            right = values > self.threshold[at]
            if missing:
                right = np.where(np.isnan(values), ~self.missing_left[at], right)
            at = children[2 * at + right]
            node[active] = at
            active = active[~self.leaf[at]]
        return np.asarray(self.value[node.reshape(n, trees)])

    def proba(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Class probabilities, (samples, classes)."""
        raw = self.raw(x)
        if raw.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.stack([1.0 - p, p], axis=1)
        raw = raw - raw.max(axis=1, keepdims=True)
        e = np.exp(raw)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


# Samples a block of `_Scorer.leaf_values` tests at once: its (splits, trees, samples) masks
# stay in the CPU's caches (`scripts/bench_scorer.py`, the shipped model, one run each: 128
# 0.93 s, 256 0.88 s, 512 0.87 s, 1024 0.93 s; 256 holds the smaller arrays).
_BLOCK = 256


@dataclass(frozen=True, slots=True)
class _Scorer:
    """A tree ensemble laid out for QuickScorer, split-major: row i of `tests` and `mask`
    holds the i-th split of every tree (a tree with fewer splits is padded with rows that
    leave every bit). Each split names its test, one of the ensemble's distinct (column,
    missing side, threshold) tests — trees share many, and each is computed once per block —
    and the leaf mask a true test leaves (every bit but those of the left subtree's leaves;
    a tree's leaves numbered left to right from bit 0); the leaves' values per tree."""

    column: npt.NDArray[np.int64]  # per distinct test
    sided: npt.NDArray[np.int64]  # per distinct test: its column among the sided values
    threshold: npt.NDArray[np.float64]  # per distinct test
    finite_threshold: npt.NDArray[np.float64]
    tests: npt.NDArray[np.int64]  # (most splits of a tree, trees): which test
    mask: npt.NDArray[np.unsignedinteger[Any]]  # (most splits of a tree, trees)
    values: npt.NDArray[np.float64]  # (trees, most leaves of a tree), 0 past a tree's leaves

    @classmethod
    def of(cls, model: TreeEnsemble) -> _Scorer | None:
        """The layout of `model`'s trees; None when a tree has more than 64 leaves."""
        ends = [*model.roots[1:].tolist(), len(model.leaf)]
        bits: dict[int, int] = {}  # leaf node -> its bit in its tree
        tree_leaves: list[list[int]] = []
        for root in model.roots.tolist():
            order: list[int] = []
            stack = [root]
            while stack:  # depth first, left before right: leaves left to right
                node = stack.pop()
                if model.leaf[node]:
                    bits[node] = len(order)
                    order.append(node)
                else:
                    stack += [int(model.right[node]), int(model.left[node])]
            tree_leaves.append(order)
        most = max(len(order) for order in tree_leaves)
        if most > 64:
            return None
        dtype = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64)
                     if np.iinfo(t).bits >= most)
        full = int(np.iinfo(dtype).max)
        under: dict[int, int] = {}  # node -> the bits of the leaves under it

        def leaves_under(node: int) -> int:
            if node not in under:
                under[node] = (1 << bits[node] if model.leaf[node] else
                               leaves_under(int(model.left[node]))
                               | leaves_under(int(model.right[node])))
            return under[node]

        splits = [[n for n in range(root, end) if not model.leaf[n]]
                  for root, end in zip(model.roots.tolist(), ends, strict=True)]
        depth = max(1, *(len(s) for s in splits))
        test_of: dict[tuple[int, float], int] = {}
        tests = np.zeros((depth, len(splits)), dtype=np.int64)
        mask = np.full((depth, len(splits)), full, dtype=dtype)
        for t, nodes in enumerate(splits):
            for i, n in enumerate(nodes):
                side = 2 * int(model.feature[n]) + int(not model.missing_left[n])
                test = (side, float(model.threshold[n]))
                tests[i, t] = test_of.setdefault(test, len(test_of))
                mask[i, t] = full & ~leaves_under(int(model.left[n]))
        if not test_of:  # every tree one leaf: a test whose rows leave every bit
            test_of[(0, np.inf)] = 0
        sided = np.asarray([s for s, _ in test_of], dtype=np.int64)
        threshold = np.asarray([t for _, t in test_of], dtype=np.float64)
        values = np.zeros((len(tree_leaves), most))
        for t, order in enumerate(tree_leaves):
            values[t, : len(order)] = model.value[order]
        return cls(
            column=sided // 2,
            sided=sided,
            threshold=threshold,
            finite_threshold=np.minimum(threshold, np.finfo(np.float64).max),
            tests=tests,
            mask=mask,
            values=values,
        )

    def leaf_values(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The value of the leaf each sample reaches in each tree, (samples, trees)."""
        n = len(x)
        trees = self.tests.shape[1]
        out = np.empty((trees, n))
        big = np.finfo(np.float64).max
        at = np.arange(trees)[:, None]
        mask = self.mask[:, :, None]
        for start in range(0, n, _BLOCK):
            block = x[start : start + _BLOCK]
            if np.isnan(block).any():
                # A missing value goes to its split's side: in a row of its own per side,
                # -inf (left of any threshold) or +inf (right of any but an infinite one,
                # which these thresholds make the largest float; +inf values are clipped to
                # it, left of it as of an infinite threshold).
                missing = np.isnan(block)
                clipped = np.minimum(block, big)
                rows = np.empty((2 * block.shape[1], len(block)))
                rows[0::2] = np.where(missing, -np.inf, clipped).T
                rows[1::2] = np.where(missing, np.inf, clipped).T
                right = rows[self.sided] > self.finite_threshold[:, None]
            else:
                right = np.ascontiguousarray(block.T)[self.column] > self.threshold[:, None]
            # A true test leaves its mask, a false one every bit: 1 - 1 = 0 and 0 - 1 = all
            # ones (unsigned), or'ed with the mask.
            masks = right[self.tests].astype(self.mask.dtype)
            masks -= 1
            masks |= mask
            left = np.bitwise_and.reduce(masks, axis=0)  # (trees, block)
            # The lowest bit left: its place is the exponent of its (exact) float value.
            lowest = (left & (~left + 1)).astype(np.float64)
            leaf = np.frexp(lowest)[1] - 1
            out[:, start : start + len(block)] = self.values[at, leaf]
        return out.T


@dataclass(frozen=True, slots=True)
class LinearModel:
    """A logistic regression over standardised features: probability = logistic of
    intercept + sum of coef * (x - mean) / scale. A missing value (NaN) counts as the
    training mean."""

    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LinearModel:
        """Read the dict written by `kg.train.decisions.export_linear`."""
        return cls(tuple(data["features"]), np.asarray(data["mean"], dtype=np.float64),
                   np.asarray(data["scale"], dtype=np.float64),
                   np.asarray(data["coef"], dtype=np.float64), float(data["intercept"]))

    def proba(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Class probabilities (not, is), (samples, 2)."""
        # Each row summed alone, in one order: a paper's decisions must not depend on which
        # papers share its batch (cached `Scores`, incremental builds). A matrix product's
        # BLAS, or a sum over a column-major array, adds a row's terms in an order that
        # depends on the batch; numpy's pairwise sum over a contiguous row does not.
        z = np.ascontiguousarray(np.nan_to_num((x - self.mean) / self.scale, nan=0.0))
        p = 1.0 / (1.0 + np.exp(-((z * self.coef).sum(axis=1) + self.intercept)))
        return np.stack([1.0 - p, p], axis=1)


Model = TreeEnsemble | LinearModel


def model_from_json(data: dict[str, Any]) -> Model:
    """A tree ensemble, or a linear model (`"kind": "linear"`)."""
    return LinearModel.from_json(data) if data.get("kind") == "linear" else (
        TreeEnsemble.from_json(data))


# Second-stage acceptance (`DecisionModel.accept2`): what the first stage thinks of the
# group and of the groups its occurrences nest in, contain or cross.
STACK_NAMES = ("stack_own", "stack_outer", "stack_inner", "stack_cross", "stack_rank")
OccurrenceSpans = Sequence[tuple[str, int, int]]
"""(field, start, end) of each occurrence of one candidate group."""


def stack_features(
    spans: dict[str, OccurrenceSpans], probs: dict[str, float]
) -> dict[str, dict[str, float]]:
    """The second-stage features of one paper's groups (by key) from their first-stage
    acceptance `probs`: its own, the highest of a group with an occurrence strictly around
    one of its occurrences ("markov decision" in "markov decision process": outer), strictly
    inside one (inner), or crossing one (cross), and its rank in the paper (0 = the most
    probable, as a share of the groups)."""
    out = {k: {"stack_own": probs[k], "stack_outer": 0.0, "stack_inner": 0.0,
               "stack_cross": 0.0, "stack_rank": 0.0} for k in spans}
    occurrences = sorted((f, s, e, k) for k, found in spans.items() for f, s, e in found)
    count = len(occurrences)
    for i, (f, s, e, k) in enumerate(occurrences):
        j = i + 1  # the occurrences starting inside this one follow it (no slice copied)
        while j < count:
            f2, s2, e2, k2 = occurrences[j]
            j += 1
            if f2 != f or s2 >= e:
                break
            if k2 == k:
                continue
            if e2 <= e and (s2, e2) != (s, e):  # k2 inside k
                pairs = (("stack_inner", k, k2), ("stack_outer", k2, k))
            elif s2 == s and e2 > e:  # k inside k2
                pairs = (("stack_outer", k, k2), ("stack_inner", k2, k))
            else:
                pairs = (("stack_cross", k, k2), ("stack_cross", k2, k))
            for name, a, b in pairs:
                if probs[b] > out[a][name]:
                    out[a][name] = probs[b]
    order = sorted(spans, key=lambda k: (-probs[k], k))
    for rank, k in enumerate(order):
        out[k]["stack_rank"] = rank / len(order)
    return out


@dataclass(frozen=True, slots=True)
class Decision:
    """What the models say about one candidate group."""

    accept: float  # probability that the group is a concept of its paper
    ctype: ConceptType
    proposes: float  # probability that it is the paper's own contribution


@dataclass(frozen=True, slots=True)
class DecisionModel:
    """The models that decide acceptance, type (per type, the mean of its models'
    probabilities) and `proposes` (the mean of its models' probabilities)."""

    accept: TreeEnsemble
    types: dict[ConceptType, tuple[Model, ...]]
    proposes: tuple[Model, ...]
    trained_on: str = ""
    # The second stage of acceptance, over the features and `STACK_NAMES` (None: one stage).
    accept2: TreeEnsemble | None = None
    # The probability from which a concept is the paper's own (learned in training).
    proposes_cut: float = 0.5
    # The acceptance probability from which a group is a concept of its paper (learned in
    # training: `kg.train.decisions.accept_cut`).
    accept_cut: float = 0.5
    # A digest of the file the model was read from (`load`); "" for a model made otherwise,
    # whose scores the parse cache never keeps (`Scores`).
    identity: str = ""

    @property
    def ensembles(self) -> list[Model]:
        second = [self.accept2] if self.accept2 is not None else []
        return [self.accept, *second, *(m for models in self.types.values() for m in models),
                *self.proposes]

    @property
    def acceptance_features(self) -> frozenset[str]:
        """The features the acceptance stages read."""
        second = self.accept2.features if self.accept2 is not None else ()
        return frozenset((*self.accept.features, *second))

    def acceptance(self, table: FeatureTable) -> npt.NDArray[np.float64]:
        """The acceptance probability of each row (the second stage's, when there is one:
        its rows carry `STACK_NAMES`)."""
        return _positive(self.accept2 if self.accept2 is not None else self.accept, table)

    def first_accept(self, rows: Sequence[dict[str, float]] | FeatureTable,
                     ) -> npt.NDArray[np.float64]:
        """The first stage's acceptance probability of each feature dict (or table row)."""
        return _positive(self.accept, rows if isinstance(rows, FeatureTable)
                         else FeatureTable.of(rows))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DecisionModel:
        if data.get("format") != FORMAT:
            raise ModelError(f"not a decisions model (format {data.get('format')!r}, "
                             f"expected {FORMAT!r}): retrain with `make train-decisions`")
        # Each type's models, or (files trained before session 30) its one tree ensemble.
        types = {ConceptType(name): tuple(model_from_json(m) for m in (
                     models if isinstance(models, list) else [models]))
                 for name, models in sorted(data["types"].items())}
        if not types:
            raise ModelError("the decisions model has no type models: retrain with "
                             "`make train-decisions`")
        proposes = tuple(model_from_json(m) for m in data["proposes"])
        if not proposes:
            raise ModelError("the decisions model has no proposes model: retrain with "
                             "`make train-decisions`")
        second = data.get("accept2")
        return cls(TreeEnsemble.from_json(data["accept"]), types, proposes,
                   str(data.get("trained_on", "")),
                   TreeEnsemble.from_json(second) if second else None,
                   float(data.get("proposes_cut", 0.5)), float(data.get("accept_cut", 0.5)))

    @classmethod
    def load(cls, path: str | Path | None = None) -> DecisionModel:
        """The shipped model (`kg/data/decisions.json.gz`), or the one at `path`."""
        if path is None:
            return _shipped()
        try:
            raw = Path(path).read_bytes()
            return cls.from_bytes(raw)
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"cannot read the decisions model {path}: {exc}") from exc

    @classmethod
    def from_bytes(cls, raw: bytes) -> DecisionModel:
        """The model of a file's bytes (JSON, gzipped or not), `identity` their digest."""
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        return replace(cls.from_json(data), identity=hashlib.sha256(raw).hexdigest()[:32])

    def decide(self, rows: Sequence[dict[str, float]] | FeatureTable, threshold: float = 0.0,
               accepted: npt.NDArray[np.float64] | None = None) -> list[Decision]:
        """One decision per feature dict (`kg.extract.features.group_features`) or table row.

        Type and `proposes` are computed only for rows accepted with probability at least
        `threshold` (the others get `Concept` and 0: they are never used, nor are the
        features only those models read). With a second stage of acceptance, rows carry its
        `STACK_NAMES` (`add_stack_features`). `accepted`: the rows' `acceptance`, when the
        caller has it.
        """
        table = rows if isinstance(rows, FeatureTable) else FeatureTable.of(rows)
        if not len(table):
            return []
        accept = self.acceptance(table) if accepted is None else accepted
        scores = Scores.unscored(accept, self.untyped)
        kept = np.flatnonzero(accept >= threshold)
        if len(kept):
            # The kept rows' columns only (a copy of every row's was ~20 ms a batch).
            scores.type_rows(kept, *self.typed(FeatureTable(table.names, table.values[kept])))
        return self.decisions(scores, threshold)

    @property
    def untyped(self) -> int:
        """The type index (in `types`) of a row whose type was not computed: Concept."""
        order = list(self.types)
        return order.index(ConceptType.CONCEPT) if ConceptType.CONCEPT in order else 0

    def typed(self, table: FeatureTable,
              ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Each row's type (its index in `types`) and `proposes` probability."""
        names = sorted({n for models in self.types.values() for m in models
                        for n in m.features} | {n for m in self.proposes for n in m.features})
        column = {n: i for i, n in enumerate(names)}
        sub = table.columns(names)
        copies: dict[tuple[str, ...], npt.NDArray[np.float64]] = {}

        def of(m: Model) -> npt.NDArray[np.float64]:
            """`m`'s probabilities; models of one feature list share one column copy."""
            if m.features not in copies:
                copies[m.features] = _columns(sub, column, m.features)
            return m.proba(copies[m.features])[:, 1]

        acceptable = np.stack([np.mean([of(m) for m in models], axis=0)
                               for models in self.types.values()], axis=1)
        return (acceptable.argmax(1).astype(np.int64),
                np.asarray(np.mean([of(m) for m in self.proposes], axis=0), dtype=np.float64))

    def decisions(self, scores: Scores, threshold: float) -> list[Decision]:
        """The decisions of scored rows at the acceptance cut `threshold`: a row under it
        gets `Concept` and 0, as `decide` gives it (every row over it must be typed)."""
        kept = scores.accept >= threshold
        if not scores.typed[kept].all():
            raise ValueError("a row over the acceptance cut has no type scored")
        order = list(self.types)
        types = np.where(kept, scores.types, self.untyped).tolist()
        proposes = np.where(kept, scores.proposes, 0.0).tolist()
        return [Decision(a, order[t], p)
                for a, t, p in zip(scores.accept.tolist(), types, proposes, strict=True)]


@dataclass(slots=True)
class Scores:
    """What the learned models said of one paper's candidate groups, a row each: every row's
    acceptance probability, and for the rows `typed` (those some acceptance cut kept) the
    index of their type in the model's `types` and their `proposes` probability. The parse
    cache keeps them beside the paper's features (`kg.extract.cache`, kind `scores`), so that
    a change of the thresholds alone runs the models only for the rows a lower cut keeps
    first (issue 14)."""

    accept: npt.NDArray[np.float64]
    types: npt.NDArray[np.int64]
    proposes: npt.NDArray[np.float64]
    typed: npt.NDArray[np.bool_]

    @classmethod
    def unscored(cls, accept: npt.NDArray[np.float64], untyped: int) -> Scores:
        """Rows with their acceptance only."""
        n = len(accept)
        return cls(np.asarray(accept, dtype=np.float64), np.full(n, untyped, dtype=np.int64),
                   np.zeros(n), np.zeros(n, dtype=np.bool_))

    def type_rows(self, rows: npt.NDArray[np.intp], types: npt.NDArray[np.int64],
                  proposes: npt.NDArray[np.float64]) -> None:
        """Set the type and `proposes` of `rows`."""
        self.types[rows] = types
        self.proposes[rows] = proposes
        self.typed[rows] = True


@dataclass(frozen=True, slots=True)
class FeatureTable:
    """The features of many candidate groups as one matrix: a row per group, a column per
    feature name (a name a group lacks is 0). What the models read; and what the parse cache
    keeps of a paper's features (`kg.extract.assemble.Prepared`): a few hundred groups of
    ~170 features each load as one array instead of as that many dicts of floats."""

    names: tuple[str, ...]
    values: npt.NDArray[np.float64]  # (rows, len(names))

    @classmethod
    def of(cls, rows: Iterable[dict[str, float]]) -> FeatureTable:
        """The table of feature dicts, their names in the order first seen."""
        rows = list(rows)
        names = tuple(rows[0]) if rows else ()
        if names and all(len(row) == len(names) for row in rows):
            try:
                get = itemgetter(*names)
                values = np.array([get(row) for row in rows], dtype=np.float64)
                return cls(names, values.reshape(len(rows), len(names)))
            except KeyError:
                pass  # rows of different names: the slow way below
        names = tuple(dict.fromkeys(n for row in rows for n in row))
        return cls(names, np.array([[row.get(n, 0.0) for n in names] for row in rows],
                                   dtype=np.float64).reshape(len(rows), len(names)))

    @classmethod
    def concat(cls, tables: Sequence[FeatureTable]) -> FeatureTable:
        """The rows of `tables` in order, under the names of all of them."""
        names = tables[0].names if tables else ()
        if any(t.names != names for t in tables):
            names = tuple(dict.fromkeys(n for t in tables for n in t.names))
            return cls(names, np.concatenate([t.columns(names) for t in tables]))
        if len(tables) == 1:
            return tables[0]
        values = np.concatenate([t.values for t in tables]) if tables else np.zeros((0, 0))
        return cls(names, values)

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def columns(self, names: Sequence[str]) -> npt.NDArray[np.float64]:
        """The values of `names`, one column each (0 for a name the table lacks)."""
        index = {n: i for i, n in enumerate(self.names)}
        if all(n in index for n in names):
            return self.values[:, [index[n] for n in names]]
        out = np.zeros((len(self), len(names)))
        for j, n in enumerate(names):
            if n in index:
                out[:, j] = self.values[:, index[n]]
        return out

    def with_columns(self, names: Sequence[str], values: npt.NDArray[np.float64],
                     ) -> FeatureTable:
        """This table with the columns `names` set to `values` (added where new)."""
        new = [n for n in names if n not in self.names]
        out = np.concatenate([self.values, np.zeros((len(self), len(new)))], axis=1)
        index = {n: i for i, n in enumerate((*self.names, *new))}
        out[:, [index[n] for n in names]] = values
        return FeatureTable((*self.names, *new), out)


def _positive(model: Model, table: FeatureTable) -> npt.NDArray[np.float64]:
    """`model`'s probability of the positive class for each row of `table`."""
    if not len(table):
        return np.zeros(0)
    return np.asarray(model.proba(table.columns(model.features))[:, 1])


def _columns(x: npt.NDArray[np.float64], column: dict[str, int],
             names: Sequence[str]) -> npt.NDArray[np.float64]:
    return x[:, [column[n] for n in names]]


@cache
def _shipped() -> DecisionModel:
    return DecisionModel.from_bytes(resources.files("kg").joinpath("data", MODEL_FILE).read_bytes())


def add_stack_features(
    model: DecisionModel,
    papers: Sequence[dict[str, dict[str, float]]],
    spans: Sequence[dict[str, OccurrenceSpans]],
) -> None:
    """Add the second stage's features (`stack_features`) to each paper's feature dicts (by
    group key), from the first stage's acceptance; nothing when the model has one stage."""
    if model.accept2 is None:
        return
    flat = [(i, key) for i, per_paper in enumerate(papers) for key in per_paper]
    table = FeatureTable.of(papers[i][key] for i, key in flat)
    for (i, key), extra in zip(flat, _stacked(model, table, flat, spans), strict=True):
        papers[i][key].update(extra)


def with_stack_features(
    model: DecisionModel,
    table: FeatureTable,
    keys: Sequence[tuple[int, str]],
    spans: Sequence[dict[str, OccurrenceSpans]],
) -> FeatureTable:
    """`add_stack_features` for a table whose rows are the groups `keys` ((paper, group key)
    pairs) of the papers whose occurrences are `spans`."""
    if model.accept2 is None:
        return table
    stacked = _stacked(model, table, keys, spans)
    values = np.array([[row[n] for n in STACK_NAMES] for row in stacked], dtype=np.float64)
    return table.with_columns(STACK_NAMES, values.reshape(len(keys), len(STACK_NAMES)))


def _stacked(model: DecisionModel, table: FeatureTable, keys: Sequence[tuple[int, str]],
             spans: Sequence[dict[str, OccurrenceSpans]]) -> list[dict[str, float]]:
    """The second stage's features of each row of `table` (the group `keys[row]`)."""
    probs: list[dict[str, float]] = [{} for _ in spans]
    for (i, key), p in zip(keys, model.first_accept(table), strict=True):
        probs[i][key] = float(p)
    per_paper = [stack_features(s, p) for s, p in zip(spans, probs, strict=True)]
    return [per_paper[i][key] for i, key in keys]
