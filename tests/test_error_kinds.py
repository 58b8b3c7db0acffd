"""The kinds of remaining errors `cv_eval.py --errors` counts, read from the features of the
candidates the decisions saw: on an invented paper and its invented gold."""

from __future__ import annotations

from kg.eval.cv import (
    GoldSet,
    boundary_error,
    confusion_rows,
    error_kinds,
    gold_examples,
    parse_gold,
    shape_of,
    type_confusion,
)
from kg.eval.graph import GoldConcept, GoldPaper, Report
from kg.extract.extractor import _default_gazetteer
from kg.normalize import norm_key
from kg.types import Paper


def _concept(label: str, ctype: str, role: str = "uses", must: bool = True) -> GoldConcept:
    return GoldConcept(label, frozenset({norm_key(label)}), (ctype,), role, must)


def test_shapes_read_from_a_candidates_features() -> None:
    assert shape_of({"kind_acronym": 1.0, "n_words": 1}) == "acronym"
    assert shape_of({"inner_capital": 1.0, "gaz_curated": 1.0}) == "name (in vocabulary)"
    assert shape_of({"n_words": 1}) == "single word"
    assert shape_of({"n_words": 3}) == "noun phrase"


def test_a_boundary_error_is_a_piece_of_a_gold_concept_or_one_with_words_added() -> None:
    gold = GoldPaper(1, "x", (_concept("graph neural network", "Method"),))
    assert boundary_error("graph neural", gold) == "piece"
    assert boundary_error("deep graph neural network", gold) == "extended"
    assert boundary_error("neural style", gold) is None  # shares a word only
    assert boundary_error("privacy concern", gold) is None


def test_errors_are_counted_by_kind_from_the_candidates_the_decisions_saw() -> None:
    text = ("We propose FooNet, a recurrent network for image parsing. We evaluate FooNet on "
            "the BarSet corpus and discuss the privacy concern of image parsing by a glimmering "
            "teapot.")
    paper = Paper("p1", text, title="Parsing images with recurrent networks")
    gold = GoldPaper(1, text[:40], (
        _concept("FooNet", "Method", "proposes"), _concept("image parsing", "Task"),
        _concept("BarSet", "Dataset"), _concept("recurrent network", "Method")))
    sets = [GoldSet("invented", [paper], [gold], {"p1": "g"}, {"p1": gold})]
    parsed = parse_gold(sets)
    examples = gold_examples(sets, parsed, _default_gazetteer().lookup)
    report = Report(
        misses=[(1, "image parsing", "Task"), (1, "recurrent network", "Method")],
        false_positives=[(1, "privacy concern", "Concept"), (1, "glimmering teapot", "Concept"),
                         (1, "recurrent", "Concept")],
        wrong_types=[(1, "BarSet", "Method", "Dataset")],
        proposes_errors=[(1, "FooNet", "gold proposes, not predicted"),
                         (1, "BarSet", "predicted proposes, gold uses")])
    kinds = dict(error_kinds(sets, parsed, {"invented": report}, examples, top=None))
    assert kinds == {
        "missed: noun phrase rejected": 2,
        "spurious: noun phrase common in the background abstracts (in >= 10) accepted": 1,
        "spurious: noun phrase rare in the background abstracts (in < 10) accepted": 1,
        "spurious: a piece of a gold concept": 1,
        "Dataset typed Method (name)": 1,
        "contribution not proposes: name, abstract only": 1,
        "proposes for a concept the gold uses": 1,
    }


def test_the_type_confusion_table_sums_runs_and_prints_counts_per_run() -> None:
    runs = [{"all": Report(type_pairs=[("Task", "Task"), ("Task", "Concept")])},
            {"all": Report(type_pairs=[("Task", "Concept"), ("Model", "Model")])}]
    table = type_confusion(runs)
    assert table == {("Task", "Task"): 1, ("Task", "Concept"): 2, ("Model", "Model"): 1}
    rows = confusion_rows(table, runs=2)
    assert rows[0].split() == ["gold", "\\", "predicted", "Model", "Method", "Task", "Dataset",
                               "Metric", "Concept", "total"]
    # Rows without a count are left out; each cell is the count per run.
    assert [row.split() for row in rows[1:]] == [
        ["Model", "0.5", "0.0", "0.0", "0.0", "0.0", "0.0", "0.5"],
        ["Task", "0.0", "0.0", "0.5", "0.0", "0.0", "1.0", "1.5"]]
