"""Training the learned extraction decisions (`kg.extract.learned`) from gold annotations.

Each candidate group of a gold paper is one example: accepted when one of its labels matches
a gold concept of the paper (must or ok, as `kg eval` counts precision), with that concept's
acceptable types (`kg eval` counts a type right when it is any of them), `proposes` when the
gold role is. The type is decided by one model per type ("is this type acceptable for it?"),
so the choice is the type most likely to be right, not the most likely first choice. scikit-learn's
HistGradientBoostingClassifier learns each decision (fixed `random_state`, so retraining on
the same data gives the same file); `export_ensemble` writes its trees as plain JSON.

Needs scikit-learn (a test/training dependency, not a run-time one).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg.extract.learned import FORMAT
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


@dataclass(frozen=True, slots=True)
class Example:
    """One candidate group with its gold answer (`ctypes`/`proposes` only when `matched`):
    `ctypes` the acceptable types, best first."""

    features: dict[str, float]
    matched: bool
    must: bool
    ctypes: tuple[ConceptType, ...]
    proposes: bool


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


def _fit(x: np.ndarray, y: Sequence[Any], weights: Sequence[float] | None = None) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(**PARAMS)
    model.fit(x, np.asarray(y), sample_weight=None if weights is None else np.asarray(weights))
    return model


def train(
    examples: Sequence[Example], features: Sequence[str], *, trained_on: str = ""
) -> dict[str, Any]:
    """The models as one JSON document (see `kg.extract.learned`): accept, one per type
    seen acceptable in training (a type never or always acceptable gets none), proposes."""
    names = list(features)
    x = np.asarray([[e.features.get(n, 0.0) for n in names] for e in examples], dtype=float)
    weights = [MUST_WEIGHT if e.must else 1.0 for e in examples]
    accept = _fit(x, [int(e.matched) for e in examples], weights)
    typed = [i for i, e in enumerate(examples) if e.matched and e.ctypes]
    types = {}
    for ctype in ConceptType:
        y = [int(ctype in examples[i].ctypes) for i in typed]
        if 0 < sum(y) < len(y):
            types[ctype.value] = export_ensemble(_fit(x[typed], y), names)
    proposes = _fit(x[typed], [int(examples[i].proposes) for i in typed])
    return {
        "format": FORMAT,
        "trained_on": trained_on,
        "accept": export_ensemble(accept, names),
        "types": types,
        "proposes": export_ensemble(proposes, names),
    }


def write_model(model: dict[str, Any], path: str | Path) -> None:
    """Write the model as gzipped JSON, byte-identical for the same model (mtime 0)."""
    text = json.dumps(model, sort_keys=True, separators=(",", ":")).encode("utf-8")
    Path(path).write_bytes(gzip.compress(text, mtime=0))
