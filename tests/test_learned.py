"""The learned decisions: JSON trees evaluate exactly like scikit-learn, the shipped model
loads and decides, retraining is deterministic, the cross-validation folds keep groups whole;
the rules' acceptance reasons (features of the model) on invented candidates."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import kg
from kg.errors import ModelError
from kg.eval.cv import (
    GoldSet,
    Spread,
    folds,
    load_gold_sets,
    merge,
    paired,
    parse_gold,
    parse_modules,
    score,
    scored_sets,
    spreads,
    training_papers,
)
from kg.eval.graph import GoldPaper, Report
from kg.extract.assemble import (
    PaperCandidates,
    ParsedField,
    Prepared,
    decide_prepared,
)
from kg.extract.candidates import FieldCandidates, Occurrence
from kg.extract.decisions import AcceptReason, CandidateGroup, DecisionThresholds, acceptance
from kg.extract.features import FEATURE_GROUPS, FEATURE_NAMES
from kg.extract.learned import (
    STACK_NAMES,
    Decision,
    DecisionModel,
    FeatureTable,
    LinearModel,
    TreeEnsemble,
    add_stack_features,
    stack_features,
    with_stack_features,
)
from kg.extract.mentions import assemble_decided, overlap_level, paper_best, resolve_overlaps
from kg.extract.terms import Term
from kg.extract.textfix import repair
from kg.normalize import norm_key
from kg.train.decisions import (
    ACCEPT_CUTS,
    PROPOSES_CUTS,
    Example,
    accept_cut,
    concept_weights,
    export_ensemble,
    export_linear,
    surviving,
    train,
    write_model,
)
from kg.types import ConceptType, Field, Mention, Paper


def _data(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    x = rng.rand(n, 4)
    x[rng.rand(n, 4) < 0.05] = np.nan  # missing values take the learned side
    return x, rng.rand(n)


@pytest.mark.parametrize("classes", [2, 3])
def test_exported_trees_give_scikit_learns_probabilities(classes: int) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    x, noise = _data()
    y = (np.nan_to_num(x[:, 0]) * classes + noise * 0.5).astype(int) % classes
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(x, y)
    ensemble = TreeEnsemble.from_json(export_ensemble(model, ["a", "b", "c", "d"]))
    assert np.allclose(ensemble.proba(x), model.predict_proba(x), atol=1e-6)


@pytest.mark.parametrize(("leaves", "classes"), [(4, 2), (15, 3), (31, 2), (63, 2), (80, 2)])
def test_quickscorer_reaches_the_leaves_the_walk_reaches(leaves: int, classes: int) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.RandomState(1)
    x = rng.rand(3000, 5)
    x[rng.rand(*x.shape) < 0.1] = np.nan
    y = (np.nan_to_num(x[:, 0]) * classes + rng.rand(3000)).astype(int) % classes
    model = HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=leaves,
                                           min_samples_leaf=2, random_state=0).fit(x, y)
    ensemble = TreeEnsemble.from_json(export_ensemble(model, ["a", "b", "c", "d", "e"]))
    # 80 leaves: more than a mask holds, so the trees are walked level by level.
    assert (ensemble.scorer is None) == (leaves > 64)
    probe = np.concatenate([x, rng.rand(50, 5)])
    probe[-10:, 0] = np.inf
    probe[-20:-10, 1] = -np.inf
    assert np.array_equal(ensemble.raw(probe), ensemble.raw_by_levels(probe))
    assert np.array_equal(ensemble.raw(np.nan_to_num(x, nan=0.5)),
                          ensemble.raw_by_levels(np.nan_to_num(x, nan=0.5)))


def _tree_json(threshold: float, missing_left: bool, trees: int = 1) -> dict:
    """`trees` copies of one split on feature 0 (leaves 1.0 left, 2.0 right), and a tree
    that is a single leaf (3.0)."""
    nodes: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right",
                                              "missing_left", "leaf", "value")}
    roots = []
    for _ in range(trees):
        at = len(nodes["leaf"])
        roots.append(at)
        for row in ((0, threshold, at + 1, at + 2, missing_left, False, 0.0),
                    (0, 0.0, 0, 0, False, True, 1.0), (0, 0.0, 0, 0, False, True, 2.0)):
            for key, value in zip(nodes, row, strict=True):
                nodes[key].append(value)
    roots.append(len(nodes["leaf"]))
    for key, value in zip(nodes, (0, 0.0, 0, 0, False, True, 3.0), strict=True):
        nodes[key].append(value)
    return {"features": ["a"], "classes": ["0", "1"], "baseline": [0.0],
            "roots": roots, "outputs": [0] * len(roots), "nodes": nodes, "depth": 1}


@pytest.mark.parametrize("missing_left", [True, False])
@pytest.mark.parametrize("threshold", [0.5, np.inf])
def test_missing_and_infinite_values_take_the_splits_side(threshold: float,
                                                          missing_left: bool) -> None:
    ensemble = TreeEnsemble.from_json(_tree_json(threshold, missing_left))
    x = np.array([[0.2], [0.9], [np.nan], [np.inf], [-np.inf], [threshold]])
    missing = 1.0 if missing_left else 2.0
    right = 2.0 if threshold < np.inf else 1.0  # 0.9 > inf is false
    expected = np.array([1.0, right, missing, 1.0 if threshold == np.inf else 2.0, 1.0, 1.0])
    assert np.array_equal(ensemble.raw(x)[:, 0], expected + 3.0)
    assert np.array_equal(ensemble.raw_by_levels(x)[:, 0], expected + 3.0)


def test_quickscorer_scores_more_samples_than_one_block() -> None:
    ensemble = TreeEnsemble.from_json(_tree_json(0.5, True, trees=3))
    x = np.linspace(0, 1, 5000)[:, None]
    assert np.array_equal(ensemble.raw(x), ensemble.raw_by_levels(x))
    assert np.array_equal(ensemble.raw(x)[:, 0], np.where(x[:, 0] > 0.5, 9.0, 6.0))


def test_quickscorer_makes_a_test_once_however_many_trees_make_it() -> None:
    # Three trees split feature 0 at 0.5 (missing left): one test; the one-leaf tree pads.
    ensemble = TreeEnsemble.from_json(_tree_json(0.5, True, trees=3))
    assert ensemble.scorer is not None
    assert len(ensemble.scorer.threshold) == 1
    assert ensemble.scorer.tests.shape == (1, 4)
    # The same split with its missing values on the other side is another test.
    other = _tree_json(0.5, False, trees=1)
    both = _tree_json(0.5, True, trees=1)
    shift = len(both["nodes"]["leaf"])
    for key, values in other["nodes"].items():
        both["nodes"][key] += ([v + shift if not leaf else v for v, leaf in
                                zip(values, other["nodes"]["leaf"], strict=True)]
                               if key in ("left", "right") else values)
    both["roots"] += [r + shift for r in other["roots"]]
    both["outputs"] += other["outputs"]
    ensemble = TreeEnsemble.from_json(both)
    assert ensemble.scorer is not None and len(ensemble.scorer.threshold) == 2
    x = np.array([[0.2], [0.8], [np.nan]])
    assert np.array_equal(ensemble.raw(x), ensemble.raw_by_levels(x))
    assert np.array_equal(ensemble.raw(x)[:, 0], [8.0, 10.0, 9.0])


def test_exported_linear_model_gives_scikit_learns_probabilities() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, noise = _data()
    x = np.nan_to_num(x)
    x[:, 3] = 2.0  # a constant feature (scale 1 in scikit-learn's scaler)
    y = (x[:, 0] + noise * 0.5 > 0.7).astype(int)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.5)).fit(x, y)
    linear = LinearModel.from_json(export_linear(model, ["a", "b", "c", "d"]))
    assert np.allclose(linear.proba(x), model.predict_proba(x), atol=1e-6)
    missing = x[:1].copy()
    missing[0, 0] = np.nan  # a missing value counts as the training mean
    at_mean = x[:1].copy()
    at_mean[0, 0] = model[0].mean_[0]
    assert np.allclose(linear.proba(missing), model.predict_proba(at_mean), atol=1e-6)


def test_proposes_is_the_mean_of_its_learners() -> None:
    rows = [{"count": float(c), "kind_name": float(k)} for c in (1, 4) for k in (0, 1)]
    both = DecisionModel.from_json(train(_examples(), ["count", "kind_name"]))
    assert [type(m).__name__ for m in both.proposes] == ["TreeEnsemble", "LinearModel"]
    alone = [DecisionModel.from_json(train(_examples(), ["count", "kind_name"],
                                           proposes_learners=(learner,)))
             for learner in ("trees", "linear")]
    mean = np.mean([[d.proposes for d in m.decide(rows)] for m in alone], axis=0)
    assert np.allclose([d.proposes for d in both.decide(rows)], mean)
    with pytest.raises(ValueError, match="unknown proposes learner"):
        train(_examples(), ["count"], proposes_learners=("forest",))


def test_the_proposes_cut_is_learned_inside_the_training_papers() -> None:
    names = ["count", "kind_name"]
    learned = train(_examples(), names)
    assert learned["proposes_cut"] in PROPOSES_CUTS
    assert learned["proposes_cut"] == train(_examples(), names)["proposes_cut"]
    assert train(_examples(), names, learn_cut=False)["proposes_cut"] == 0.5
    one_group = [replace(e, group="g") for e in _examples()]
    assert train(one_group, names)["proposes_cut"] == 0.5  # no folds to learn it from
    model = DecisionModel.from_json(learned)
    assert model.proposes_cut == learned["proposes_cut"]


def _found(paper: str, concept: str, must: bool, start: int, end: int) -> Example:
    return Example({}, matched=bool(concept), must=must, ctypes=(), proposes=False,
                   paper=paper, concept=concept, spans=(("abstract", start, end),))


def test_the_accept_cut_balances_concepts_found_and_spurious_groups() -> None:
    # Two groups of one must concept (a long form and its acronym) count it once; a group
    # matching no gold concept is a spurious concept, unless a group of its level (0.2
    # steps) around it takes its only occurrence ("graph neural" in "graph neural network").
    examples = [_found("p", "graph neural network", True, 0, 20),
                _found("p", "graph neural network", True, 22, 25),
                _found("p", "", False, 0, 12),
                _found("p", "molecules", False, 40, 49), _found("p", "", False, 50, 55),
                _found("q", "transformer", True, 0, 11), _found("q", "", False, 20, 25)]
    # Above 0.55 one must concept of two is lost; below, spurious groups come in.
    proba = np.array([0.9, 0.3, 0.8, 0.8, 0.45, 0.56, 0.52])
    assert accept_cut(examples, proba) == 0.55  # recall 1, precision 1
    assert surviving(examples, proba, range(5), 0.55) == [0, 3]  # the piece is no concept
    # A piece likelier by a step keeps its occurrence, and the whole is lost with it.
    assert surviving(examples, np.array([0.62, 0.3, 0.95]), range(3), 0.55) == [2]
    assert accept_cut(examples, np.array([0.9, 0.3, 0.1, 0.8, 0.1, 0.9, 0.1])) == max(
        ACCEPT_CUTS)
    assert accept_cut([_found("p", "molecules", False, 0, 9)], np.array([0.9])) == 0.5


def test_the_accept_cut_is_the_lowest_within_one_standard_error_of_the_best() -> None:
    # Four inner folds (groups a-d), a paper each, with a must concept at 0.9. In a and b a
    # second must concept at 0.62 and three spurious groups at 0.57; in c and d four
    # spurious groups at 0.62. F1 fold by fold at 0.6 | 0.65 and above | 0.55 and below:
    # a, b 1.0 | 0.667 | 0.571; c, d 0.286 | 0.667 | 0.286. 0.65 and above are best on the
    # mean (0.667), 0.6 is 0.024 below, within its error (0.206), 0.55 is 0.238 below, out
    # of its error (0.083): the cut is 0.6, the lowest within.
    examples: list[Example] = []
    proba: list[float] = []

    def add(paper: str, concept: str, p: float) -> None:
        start = 10 * len(examples)
        examples.append(replace(_found(paper, concept, bool(concept), start, start + 5),
                                group=paper))
        proba.append(p)

    for paper in "ab":
        add(paper, "x", 0.9)
        add(paper, "y", 0.62)
        for _ in range(3):
            add(paper, "", 0.57)
    for paper in "cd":
        add(paper, "x", 0.9)
        for _ in range(4):
            add(paper, "", 0.62)
    assert accept_cut(examples, np.array(proba)) == 0.6


def test_the_accept_cut_counts_must_concepts_no_candidate_matches() -> None:
    # One paper: two must concepts found at 0.6 with two spurious groups (recall 1,
    # precision 0.5), one above (recall 0.5, precision 1): F1 ties and the higher cut
    # wins. With two more must concepts no candidate matches, recall halves on both sides
    # and the lower cut's F1 is the higher (0.5 against 0.4).
    examples = [_found("p", "x", True, 0, 5), _found("p", "y", True, 10, 15),
                _found("p", "", False, 20, 25), _found("p", "", False, 30, 35)]
    proba = np.array([0.9, 0.62, 0.62, 0.62])
    assert accept_cut(examples, proba) == max(ACCEPT_CUTS)
    assert accept_cut(examples, proba, {"p": 4}) == 0.6


def test_the_accept_cut_is_learned_inside_the_training_papers() -> None:
    names = ["count", "kind_name"]
    examples = [replace(e, concept=f"c{e.key}" if e.matched else "") for e in _examples()]
    for stack in (False, True):
        learned = train(examples, names, stack=stack)
        assert learned["accept_cut"] in ACCEPT_CUTS
        assert DecisionModel.from_json(learned).accept_cut == learned["accept_cut"]
    one_group = [replace(e, group="g") for e in examples]
    assert train(one_group, names)["accept_cut"] == 0.5  # no folds to learn it from


def test_decisions_accept_from_the_models_cut_unless_one_is_given() -> None:
    text = "We train a graph neural network on molecules."
    occurrences = tuple(Occurrence(
        term=Term(0, 1, label, "chunk"), role=None, introduced=False, type_cues=(),
        sentence=0, sent_start=0, sent_end=len(text), char_start=text.index(label),
        char_end=text.index(label) + len(label)) for label in ("graph neural network",
                                                               "molecules"))
    fields = [ParsedField(Field.ABSTRACT, repair(text), FieldCandidates(occurrences, (), None))]
    row = {"count": 2.0, "kind_name": 1.0}
    trained = DecisionModel.from_json(train(_examples(), ["count", "kind_name"]))
    [decision] = trained.decide([row])

    def kept(cut: float, thresholds: DecisionThresholds) -> list[str]:
        cands = PaperCandidates({}, set(), None)
        for occ in occurrences:
            cands.groups[norm_key(occ.term.label)] = CandidateGroup(
                norm_key(occ.term.label), [(Field.ABSTRACT, occ)])
        prepared = Prepared(cands, FeatureTable.of([row, row]))
        [mentions] = decide_prepared([({Field.ABSTRACT: text}, fields, prepared)],
                                     replace(trained, accept_cut=cut), thresholds)
        return sorted(m.text for m in mentions)

    above, below = decision.accept + 1e-6, decision.accept - 1e-6
    assert kept(above, DecisionThresholds()) == []  # the model's own cut
    assert kept(below, DecisionThresholds()) == ["graph neural network", "molecules"]
    assert kept(above, DecisionThresholds(accept=below)) == ["graph neural network",
                                                             "molecules"]


def test_a_type_is_decided_by_the_mean_of_its_models() -> None:
    names = ["count", "kind_name"]
    model = train(_examples(), names)
    assert all([m.get("kind", "trees") for m in models] == ["trees", "linear"]
               for models in model["types"].values())
    rows = [{"count": c, "kind_name": k} for c in (1.0, 4.0) for k in (0.0, 1.0)]
    x = FeatureTable.of(rows).columns(names)
    decided = DecisionModel.from_json(model)
    assert all([type(m) for m in models] == [TreeEnsemble, LinearModel]
               for models in decided.types.values())
    mean = np.stack([np.mean([m.proba(x)[:, 1] for m in models], axis=0)
                     for models in decided.types.values()], axis=1)
    order = list(decided.types)
    assert [d.ctype for d in decided.decide(rows)] == [order[i] for i in mean.argmax(1)]
    # The trees alone (`type_learners`), and a file of one ensemble per type (before
    # session 30) reads as a type of one model.
    trees = train(_examples(), names, type_learners=("trees",))
    older = {**trees, "types": {t: models[0] for t, models in trees["types"].items()}}
    assert ([d.ctype for d in DecisionModel.from_json(older).decide(rows)]
            == [d.ctype for d in DecisionModel.from_json(trees).decide(rows)])
    with pytest.raises(ValueError, match="type learner"):
        train(_examples(), names, type_learners=("forest",))


def test_type_only_features_feed_the_type_models_alone() -> None:
    names = ["count", "kind_name", "tn_Task", "tn_n"]
    examples = [replace(e, features={**e.features, "tn_Task": float(e.ctypes[:1] ==
                                                                    (ConceptType.DATASET,)),
                                     "tn_n": 1.0})
                for e in _examples()]
    model = train(examples, names)
    assert model["accept"]["features"] == ["count", "kind_name"]
    assert all(m["features"] == ["count", "kind_name"] for m in model["proposes"])
    assert all(m["features"] == names for models in model["types"].values()
               for m in models)
    decided = DecisionModel.from_json(model).decide(
        [{"count": 2.0, "kind_name": 1.0, "tn_Task": v, "tn_n": 1.0} for v in (0.0, 1.0)])
    assert [d.ctype for d in decided] == [ConceptType.METHOD, ConceptType.DATASET]


def test_accept_only_features_feed_acceptance_alone() -> None:
    names = ["count", "kind_name", "ov_outer_share"]
    # kind_name says the type here, ov_outer_share whether it is a concept.
    examples = [replace(e, features={**e.features, "ov_outer_share": float(not e.matched),
                                     "kind_name": float(e.ctypes[:1] == (ConceptType.METHOD,))})
                for e in _examples()]
    model = train(examples, names)
    assert model["accept"]["features"] == names
    assert all(m["features"] == ["count", "kind_name"] for m in model["proposes"])
    assert all(m["features"] == ["count", "kind_name"] for models in model["types"].values()
               for m in models)
    decided = DecisionModel.from_json(model).decide(
        [{"count": 2.0, "kind_name": 1.0, "ov_outer_share": v} for v in (0.0, 1.0)])
    assert decided[0].accept > 0.5 > decided[1].accept
    assert decided[0].ctype is ConceptType.METHOD


def _examples() -> list[Example]:
    rng = np.random.RandomState(1)
    out = []
    for i in range(200):
        matched = bool(i % 3)
        out.append(Example(
            features={"count": float(rng.randint(1, 5)), "kind_name": float(matched)},
            matched=matched, must=i % 2 == 0,
            ctypes=((ConceptType.METHOD,) if i % 4 else (ConceptType.DATASET, ConceptType.TASK))
            if matched else (),
            proposes=i % 5 == 0,
            paper=f"p{i // 10}", group=f"g{i // 40}", key=f"k{i % 10}",
            spans=(("abstract", i % 10, i % 10 + 2),),
        ))
    return out


def test_overlapping_spans_compare_probabilities_in_steps() -> None:
    text = "We train a graph neural network on molecules."
    start = text.index("graph")

    def group(label: str, at: int) -> CandidateGroup:
        group = CandidateGroup(norm_key(label))
        group.occurrences.append((Field.ABSTRACT, Occurrence(
            term=Term(0, 1, label, "chunk"), role=None, introduced=False, type_cues=(),
            sentence=0, sent_start=0, sent_end=len(text), char_start=at,
            char_end=at + len(label))))
        return group

    accepted = {"graph neural network": group("graph neural network", start),
                "graph neural": group("graph neural", start)}
    fields = [SimpleNamespace(field=Field.ABSTRACT)]

    def survivors(whole: float, piece: float, step: float) -> list[str]:
        scores = {"graph neural network": overlap_level(whole, step),
                  "graph neural": overlap_level(piece, step)}
        return sorted(resolve_overlaps(fields, accepted, scores))  # type: ignore[arg-type]

    assert survivors(0.78, 0.83, 0.2) == ["graph neural network"]  # one step: the longer
    assert survivors(0.55, 0.95, 0.2) == ["graph neural"]  # clearly likelier: the piece
    assert survivors(0.78, 0.83, 0.0) == ["graph neural"]  # probabilities alone
    assert DecisionThresholds().overlap_step == 0.2
    # A name keeps its boundaries against a phrase of the same level around it.
    assert overlap_level(0.78, 0.2, named=True) > overlap_level(0.83, 0.2)
    assert overlap_level(0.95, 0.2) > overlap_level(0.55, 0.2, named=True)


def test_a_proposal_keeps_its_whole_phrase_against_a_likelier_piece() -> None:
    text = "We propose privacy-aware randomized quantization for federated learning."
    whole, piece = "privacy-aware randomized quantization", "quantization"
    occurrences = tuple(Occurrence(
        term=Term(0, 1, label, "chunk"), role=None, introduced=False, type_cues=(),
        sentence=0, sent_start=0, sent_end=len(text), char_start=text.index(label),
        char_end=text.index(label) + len(label)) for label in (whole, piece))
    fields = [ParsedField(Field.ABSTRACT, repair(text), FieldCandidates(occurrences, (), None))]

    def labels(proposes: float, thresholds: DecisionThresholds) -> set[tuple[str, str]]:
        cands = PaperCandidates({}, set(), None)
        for occ in occurrences:
            group = cands.groups.setdefault(norm_key(occ.term.label),
                                            CandidateGroup(norm_key(occ.term.label)))
            group.occurrences.append((Field.ABSTRACT, occ))
        # The piece is likelier a concept by more than one step; the whole is the proposal.
        decisions = {norm_key(whole): Decision(0.75, ConceptType.METHOD, proposes),
                     norm_key(piece): Decision(0.95, ConceptType.METHOD, 0.05)}
        mentions = assemble_decided({Field.ABSTRACT: text}, fields, cands, decisions,
                                    thresholds, 0.3)
        return {(m.text, m.role.value) for m in mentions}

    assert labels(0.6, DecisionThresholds()) == {(whole, "proposes")}
    # Under the cut it is no proposal, and the likelier piece cuts it, as without the rule.
    assert labels(0.2, DecisionThresholds()) == {(piece, "uses")}
    assert labels(0.6, DecisionThresholds(overlap_proposal=0.0)) == {(piece, "uses")}


def test_the_groups_of_one_gold_concept_share_one_weight() -> None:
    def example(paper: str, concept: str) -> Example:
        return Example(features={}, matched=bool(concept), must=False, ctypes=(),
                       proposes=False, paper=paper, concept=concept)

    # One paper writes its method three ways (a long form, its acronym, a plural), another
    # once; the same label in two papers is two concepts; an unmatched group weighs 1.
    found = concept_weights([example("p1", "wobble net"), example("p1", "wobble net"),
                             example("p1", "wobble net"), example("p2", "wobble net"),
                             example("p1", "")])
    assert found.tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0, 1.0])


def test_proposes_learnt_by_concept_changes_only_the_proposes_models() -> None:
    examples = [replace(e, concept=f"c{i % 4}" if e.matched else "")
                for i, e in enumerate(_examples())]
    names = ["count", "kind_name"]
    by_group = train(examples, names, by_concept=False)
    by_concept = train(examples, names, by_concept=True)
    assert by_group["accept"] == by_concept["accept"] and by_group["types"] == by_concept["types"]
    assert by_group["proposes"] != by_concept["proposes"]


def test_retraining_writes_the_same_bytes(tmp_path: Path) -> None:
    names = ["count", "kind_name"]
    write_model(train(_examples(), names), tmp_path / "a.json.gz")
    write_model(train(_examples(), names), tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    assert train(_examples(), names, seed=3) == train(_examples(), names, seed=3)
    model = DecisionModel.load(tmp_path / "a.json.gz")
    [named, unnamed] = model.decide([{"count": 1.0, "kind_name": 1.0},
                                     {"count": 1.0, "kind_name": 0.0}])
    assert named.accept > 0.5 > unnamed.accept


def test_the_shipped_model_loads_and_uses_known_features() -> None:
    model = DecisionModel.load()
    for ensemble in model.ensembles:
        assert set(ensemble.features) <= set(FEATURE_NAMES) | set(STACK_NAMES)
    assert ConceptType.METHOD in model.types and ConceptType.DATASET in model.types
    [decision] = model.decide([dict.fromkeys(FEATURE_NAMES, 0.0)])
    assert 0.0 <= decision.accept <= 1.0 and 0.0 <= decision.proposes <= 1.0


def test_a_file_of_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"format": "other"}).encode()))
    with pytest.raises(ModelError, match="train-decisions"):
        DecisionModel.load(path)


def test_feature_groups_partition_the_features() -> None:
    names = [n for group in FEATURE_GROUPS.values() for n in group]
    assert len(names) == len(set(names)) == len(FEATURE_NAMES)


def test_folds_keep_each_conference_file_whole_and_cover_all() -> None:
    groups = {f"p{i}": f"venue{i % 5}" for i in range(20)}
    gold_set = GoldSet("x", [], [], groups, {})
    found = folds([gold_set], k=3)
    assert found == folds([gold_set], k=3)  # deterministic
    assert sorted(g for fold in found for g in fold) == sorted(set(groups.values()))


def test_other_seeds_deal_the_same_groups_into_other_folds() -> None:
    groups = {f"p{i}": f"venue{i % 8}" for i in range(40)}
    gold_set = GoldSet("x", [], [], groups, {})
    dealt = {seed: folds([gold_set], k=4, seed=seed) for seed in range(4)}
    assert dealt[2] == folds([gold_set], k=4, seed=2)  # a seed is reproducible
    assert len({tuple(sorted(tuple(sorted(fold)) for fold in f)) for f in dealt.values()}) > 1
    for found in dealt.values():
        assert sorted(g for fold in found for g in fold) == sorted(set(groups.values()))
        assert [len(fold) for fold in found] == [2, 2, 2, 2]


def test_training_shares_are_nested_and_dealt_by_seed() -> None:
    ids = [f"paper{i}" for i in range(41)]
    half, most, whole = (training_papers(ids, share, seed=1) for share in (0.5, 0.75, 1.0))
    assert (len(half), len(most)) == (round(0.5 * 41), round(0.75 * 41)) == (20, 31)
    assert sorted(whole) == sorted(ids)
    assert most[:20] == half and whole[:31] == most  # a larger share holds the smaller
    # The input's order does not matter; another dealing's seed keeps other papers.
    assert training_papers(reversed(ids), 0.5, seed=1) == half
    assert set(training_papers(ids, 0.5, seed=2)) != set(half)
    assert training_papers(ids, 0.5, seed=2) == training_papers(ids, 0.5, seed=2)
    for share in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="share"):
            training_papers(ids, share)


def test_spreads_and_paired_differences_of_repeated_runs() -> None:
    def run(found: int, correct: int) -> dict[str, Report]:
        return {"all": Report(must_total=10, must_found=found, predicted=10, correct=correct)}

    base, changed = [run(8, 7), run(6, 7)], [run(9, 7), run(7, 8)]
    recall = spreads(base)["must_recall"]
    assert recall == Spread(0.7, pytest.approx(0.1414, abs=1e-4), 0.6, 0.8)
    diff = paired(changed, base)
    # The folds move recall by 0.2 between seeds; the change adds 0.1 on each of them.
    assert diff["must_recall"].mean == pytest.approx(0.1) and diff["must_recall"].sd < 1e-9
    assert diff["precision"].low == 0.0 and diff["precision"].high == pytest.approx(0.1)


def test_merged_reports_add_up() -> None:
    a = Report(papers=1, must_total=4, must_found=3, misses=[(1, "x", "Task")])
    b = Report(papers=2, must_total=6, must_found=3, false_positives=[(2, "y", "Method")])
    total = merge([a, b])
    assert (total.papers, total.must_total, total.must_found) == (3, 10, 6)


def _group(label: str, kind: str, count: int = 1) -> CandidateGroup:
    group = CandidateGroup(norm_key(label))
    for i in range(count):
        term = Term(i * 10, i * 10 + len(label.split()), label, kind)
        occ = Occurrence(term=term, role=None, introduced=False, type_cues=(), sentence=i,
                         sent_start=0, sent_end=100, char_start=i * 40,
                         char_end=i * 40 + len(label))
        group.occurrences.append((Field.ABSTRACT, occ))
        group.labels[label] += 1
    return group


@pytest.mark.parametrize(
    ("label", "kind", "count", "reason"),
    [
        ("Glimmer", "name", 2, AcceptReason.NAME),  # a name said twice
        ("Glimmer", "name", 1, None),  # a lone capitalised word said once: an eponym, mostly
        ("frobnication scheduling", "chunk", 2, AcceptReason.PHRASE_REPEATED),
        ("frobnication scheduling", "chunk", 1, None),
        ("method", "chunk", 3, None),  # a generic word is never a concept
        ("Kim et al", "name", 2, None),  # a citation
    ],
)
def test_rule_acceptance_reasons(label: str, kind: str, count: int,
                                 reason: AcceptReason | None) -> None:
    assert acceptance(_group(label, kind, count), lambda _: ()) is reason


def test_cv_parse_cache_hashes_only_what_parsing_runs() -> None:
    names = {p.name for p in parse_modules(Path(kg.__file__).parent / "extract")}
    assert {"candidates.py", "subspans.py", "terms.py", "extractor.py", "nlp.py"} <= names
    assert not names & {"features.py", "contribution.py", "learned.py", "assemble.py",
                        "decisions.py"}


def test_a_paper_proposes_its_best_candidate_only_when_none_passes() -> None:
    def decided(*probs: float) -> dict[str, Decision]:
        return {f"k{i}": Decision(0.9, ConceptType.METHOD, p) for i, p in enumerate(probs)}

    on = DecisionThresholds(paper_best=0.2)
    assert paper_best(decided(0.1, 0.3), ["k0", "k1"], on, 0.5) == "k1"
    assert paper_best(decided(0.1, 0.6), ["k0", "k1"], on, 0.5) is None  # one passes already
    assert paper_best(decided(0.1, 0.15), ["k0", "k1"], on, 0.5) is None  # too unlikely
    assert paper_best(decided(0.1, 0.3), ["k0"], on, 0.5) is None  # only accepted keys count
    assert paper_best(decided(0.1, 0.3), ["k0", "k1"], DecisionThresholds(), 0.5) is None  # off


def test_stack_features_see_the_groups_a_candidate_nests_in() -> None:
    spans = {
        "markov decision process": [("abstract", 10, 33)],
        "markov decision": [("abstract", 10, 25)],
        "decision process": [("abstract", 17, 33), ("abstract", 60, 76)],
        "policy": [("title", 0, 6)],
    }
    probs = {"markov decision process": 0.9, "markov decision": 0.4,
             "decision process": 0.3, "policy": 0.6}
    f = stack_features(spans, probs)
    assert f["markov decision"]["stack_outer"] == 0.9
    assert f["markov decision"]["stack_cross"] == 0.3  # "markov [decision] process"
    assert f["markov decision process"]["stack_inner"] == 0.4
    assert f["markov decision process"]["stack_outer"] == 0.0
    assert f["policy"]["stack_outer"] == f["policy"]["stack_cross"] == 0.0  # another field
    assert [f[k]["stack_rank"] for k in ("markov decision process", "policy")] == [0.0, 0.25]


def test_a_second_stage_of_acceptance_is_trained_and_used() -> None:
    examples = _examples()
    data = train(examples, ["count", "kind_name"], stack=True)
    assert data == train(examples, ["count", "kind_name"], stack=True)  # deterministic
    model = DecisionModel.from_json(data)
    assert model.accept2 is not None and set(STACK_NAMES) <= set(model.accept2.features)
    assert "accept2" not in train(examples, ["count", "kind_name"], stack=False)
    rows = [{"count": 1.0, "kind_name": 1.0}, {"count": 1.0, "kind_name": 0.0}]
    papers = [{"a": rows[0], "b": rows[1]}]
    add_stack_features(model, papers, [{"a": [("abstract", 0, 5)], "b": [("abstract", 2, 4)]}])
    assert papers[0]["b"]["stack_outer"] == papers[0]["a"]["stack_own"]
    [named, unnamed] = model.decide(rows)
    assert named.accept > 0.5 > unnamed.accept


def test_a_feature_table_decides_as_its_dicts_do() -> None:
    """The parse cache keeps a paper's features as one `FeatureTable`: the models read it as
    they read the feature dicts (a name a row lacks is 0), stack features included."""
    model = DecisionModel.from_json(train(_examples(), ["count", "kind_name"], stack=True))
    rows = [{"count": 1.0, "kind_name": 1.0}, {"kind_name": 0.0, "count": 2.0},
            {"count": 3.0}]
    table = FeatureTable.of(rows)
    assert table.names == ("count", "kind_name")
    assert table.values.tolist() == [[1.0, 1.0], [2.0, 0.0], [3.0, 0.0]]
    assert table.columns(["kind_name", "absent"]).tolist() == [[1.0, 0.0], [0.0, 0.0],
                                                                [0.0, 0.0]]
    both = FeatureTable.concat([FeatureTable.of(rows[:1]), FeatureTable.of(rows[2:])])
    assert both.names == ("count", "kind_name") and both.values.tolist() == [[1.0, 1.0],
                                                                             [3.0, 0.0]]
    spans = [{"a": [("abstract", 0, 5)], "b": [("abstract", 2, 4)]}, {"c": [("title", 0, 3)]}]
    keys = [(0, "a"), (0, "b"), (1, "c")]
    papers = [{"a": dict(rows[0]), "b": dict(rows[1])}, {"c": dict(rows[2])}]
    add_stack_features(model, papers, spans)
    stacked = with_stack_features(model, table, keys, spans)
    assert stacked.names[-len(STACK_NAMES):] == STACK_NAMES
    assert model.decide(stacked) == model.decide([papers[i][k] for i, k in keys])


def test_training_only_sets_train_but_are_never_dealt_into_folds_or_scored() -> None:
    """Annotated abstracts kept for training (kg/train/annotated) are in no fold and no
    figure: `score` asks the decider only for the gold papers."""
    text = "We propose FooNet, a recurrent network for image parsing, and test it on BarSet."
    scored = Paper("p1", text, title="FooNet")
    extra = Paper("p2", text.replace("FooNet", "BazNet"), title="BazNet")
    gold = GoldPaper(1, text[:40], ())
    sets = [GoldSet("gold", [scored], [gold], {"p1": "venue-a"}, {"p1": gold}),
            GoldSet("extra", [extra], [gold], {"p2": "venue-b"}, {"p2": gold}, scored=False)]
    assert scored_sets(sets) == sets[:1]
    assert folds(scored_sets(sets)) == [{"venue-a"}]
    asked: list[str] = []

    def decide(ids: list[str]) -> list[list[Mention]]:
        asked.extend(ids)
        return [[] for _ in ids]

    reports = score(sets, parse_gold(sets), decide)
    assert asked == ["p1"] and set(reports) == {"gold", "all"}


def test_training_only_sets_load_from_their_folder_grouped_by_conference_file(
        tmp_path: Path, shared_data: Path) -> None:
    text = "We propose FooNet, a recurrent network for image parsing."
    (tmp_path / "extra_papers.json").write_text(json.dumps(
        [{"id": "x1", "title": "FooNet", "abstract": text, "venue": "acl2022"}]))
    (tmp_path / "extra_gold.json").write_text(json.dumps({"papers": [
        {"n": 1, "id": "x1", "venue": "acl2022", "title": "FooNet", "abstract_start": text[:40],
         "concepts": [{"label": "FooNet", "aliases": [], "types": ["Method"],
                       "role": "proposes", "need": "must"}]}]}))
    sets = load_gold_sets(shared_data, tmp_path)
    assert [(s.name, s.scored) for s in sets] == [("iclr2025", True), ("dev2", True),
                                                  ("extra", False)]
    assert sets[2].groups == {"x1": "acl2022"}
    assert "acl2022" in set(sets[1].groups.values())  # held out together with dev2's papers
    assert [s.name for s in load_gold_sets(shared_data)] == ["iclr2025", "dev2"]
