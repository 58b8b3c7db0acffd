"""kg.eval.graph and `kg eval GRAPH GOLD` on hand-made gold and predictions (exact counts).

The metric is ../shared/data/gold/GUIDELINES.md: recall over `must` concepts; precision over
every predicted concept (matching a must or ok gold concept); type accuracy over matched
concepts; proposes precision/recall. Labels match on `norm_key` against label or aliases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.errors import InputError
from kg.eval.graph import (
    Predicted,
    evaluate,
    is_paper_gold,
    load_gold,
    predictions_from_corpus,
    predictions_from_graph,
)
from kg.rdf import GraphFormat, build_triples, write_graph
from kg.types import Concept, ConceptType, Corpus, Field, Link, Mention, Paper, Role, Span

ABSTRACT_A = ("We introduce the Long Question Coreference Adaptation (LQCA) method. LQCA "
              "improves GPT-4o and other LLMs on long documents through coreference.")
ABSTRACT_B = ("We propose DEI (Diversity Empowered Intelligence), a framework for agents. "
              "DEI reaches a 34% resolve rate on SWE-bench Lite.")
ABSTRACT_C = "An abstract that the gold file does not annotate mentions GPT-4o."

GOLD = {
    "source": "hand-made",
    "papers": [
        {"n": 1, "abstract_start": "We introduce the Long   Question", "concepts": [
            {"label": "Long Question Coreference Adaptation", "aliases": ["LQCA"],
             "types": ["Method"], "role": "proposes", "need": "must"},
            {"label": "GPT-4o", "aliases": [], "types": ["Model"], "role": "uses",
             "need": "must"},
            {"label": "question answering", "aliases": ["QA"], "types": ["Task"],
             "role": "addresses", "need": "must"},
            {"label": "large language model", "aliases": ["LLM", "LLMs"],
             "types": ["Model", "Concept"], "role": "uses", "need": "ok"},
        ]},
        {"n": 2, "abstract_start": "We propose DEI", "concepts": [
            {"label": "Diversity Empowered Intelligence", "aliases": ["DEI"],
             "types": ["Method"], "role": "proposes", "need": "must"},
            {"label": "SWE-Bench Lite", "aliases": [], "types": ["Dataset"],
             "role": "evaluatesOn", "need": "must"},
            {"label": "resolve rate", "aliases": [], "types": ["Metric"], "role": "measures",
             "need": "must"},
        ]},
    ],
}

# Paper id -> what a system predicted: (labels, type, role).
PREDICTED = {
    "a": [
        Predicted(("Long Question Coreference Adaptation", "LQCA"), "Method", "proposes"),
        Predicted(("GPT-4o",), "Method", "uses"),  # right concept, wrong type
        Predicted(("large language model", "LLMs"), "Model", "uses"),  # an "ok" concept
        Predicted(("coreference",), "Concept", "mentions"),  # not in gold
    ],
    "b": [
        Predicted(("DEI",), "Method", "uses"),  # gold proposes: a missed proposal
        Predicted(("SWE-bench lite",), "Dataset", "evaluatesOn"),  # case folded
        Predicted(("agents",), "Concept", "proposes"),  # not in gold, wrongly proposed
    ],
    "c": [Predicted(("GPT-4o",), "Model", "uses")],  # paper outside the gold: ignored
}
ABSTRACTS = {"a": ABSTRACT_A, "b": ABSTRACT_B, "c": ABSTRACT_C}

SUMMARY = """\
papers              2
must-recall         0.667  (4/6)
precision           0.714  (5/7)
F1                  0.690
type accuracy       0.800  (4/5)
proposes precision  0.500  (1/2)
proposes recall     0.500  (1/2)
proposes P (must)   0.500  (1/2)
proposes R (must)   0.500  (1/2)"""

DETAILS = """\
misses (2):
  [1] question answering (Task)
  [2] resolve rate (Metric)
false positives (2):
  [1] coreference (Concept)
  [2] agents (Concept)
wrong types (1):
  [1] GPT-4o: Method, gold Model
proposes errors (2):
  [2] agents: not in gold
  [2] Diversity Empowered Intelligence: gold proposes, not predicted"""


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(GOLD), encoding="utf-8")
    return path


def test_exact_counts(gold_file: Path) -> None:
    report = evaluate(load_gold(gold_file), ABSTRACTS, PREDICTED)
    assert (report.papers, report.must_total, report.must_found) == (2, 6, 4)
    assert (report.predicted, report.correct) == (7, 5)
    assert (report.typed, report.typed_right) == (5, 4)
    # The gold type of a right answer is the predicted one ("large language model": Model or
    # Concept), of a wrong one the gold's best.
    assert sorted(report.type_pairs) == [("Dataset", "Dataset"), ("Method", "Method"),
                                         ("Method", "Method"), ("Model", "Method"),
                                         ("Model", "Model")]
    assert (report.proposes_predicted, report.proposes_right) == (2, 1)
    assert (report.proposes_gold, report.proposes_found) == (2, 1)
    assert report.must_recall == pytest.approx(4 / 6)
    assert report.precision == pytest.approx(5 / 7)
    assert report.f1 == pytest.approx(2 * (5 / 7) * (4 / 6) / (5 / 7 + 4 / 6))
    assert report.type_accuracy == pytest.approx(0.8)
    assert report.summary() == SUMMARY
    assert report.details() == DETAILS


def test_must_only_proposes_leave_ok_contributions_out(tmp_path: Path) -> None:
    """A proposal of an `ok` contribution counts for the proposes figures but on neither side
    of the must-only ones; an `ok` contribution missed lowers recall, not must-only recall."""
    gold = {"papers": [{"n": 1, "abstract_start": "We introduce the Long", "concepts": [
        {"label": "LQCA", "aliases": [], "types": ["Method"], "role": "proposes",
         "need": "must"},
        {"label": "coreference module", "aliases": [], "types": ["Method"],
         "role": "proposes", "need": "ok"},
        {"label": "long-document training", "aliases": [], "types": ["Method"],
         "role": "proposes", "need": "ok"},
        {"label": "GPT-4o", "aliases": [], "types": ["Model"], "role": "uses",
         "need": "must"},
    ]}]}
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold), encoding="utf-8")
    predicted = {"a": [
        Predicted(("LQCA",), "Method", "proposes"),
        Predicted(("coreference modules",), "Method", "proposes"),  # an ok contribution
        Predicted(("GPT-4o",), "Model", "proposes"),  # used, not proposed
    ]}
    report = evaluate(load_gold(path), {"a": ABSTRACT_A}, predicted)
    assert (report.proposes_right, report.proposes_predicted) == (2, 3)
    assert (report.proposes_found, report.proposes_gold) == (2, 3)
    assert (report.proposes_must_right, report.proposes_ok_only) == (1, 1)
    assert (report.proposes_must_found, report.proposes_must_gold) == (1, 1)
    assert report.proposes_must_precision == pytest.approx(1 / 2)
    assert report.proposes_must_recall == 1.0


def test_perfect_predictions(gold_file: Path) -> None:
    gold = load_gold(gold_file)
    perfect = {
        "a": [Predicted(("Long Question Coreference Adaptation",), "Method", "proposes"),
              Predicted(("GPT-4o",), "Model", "uses"),
              Predicted(("QA",), "Task", "addresses")],
        "b": [Predicted(("DEI",), "Method", "proposes"),
              Predicted(("SWE-Bench Lite",), "Dataset", "evaluatesOn"),
              Predicted(("resolve rates",), "Metric", "measures")],  # plural folded
    }
    report = evaluate(gold, ABSTRACTS, perfect)
    assert (report.must_recall, report.precision, report.type_accuracy) == (1.0, 1.0, 1.0)
    assert (report.proposes_precision, report.proposes_recall) == (1.0, 1.0)
    assert report.misses == report.false_positives == report.wrong_types == []


def test_no_predictions_scores_zero_without_dividing_by_zero(gold_file: Path) -> None:
    report = evaluate(load_gold(gold_file), ABSTRACTS, {})
    assert (report.must_recall, report.precision, report.f1) == (0.0, 0.0, 0.0)
    assert report.type_accuracy == report.proposes_precision == 0.0
    assert len(report.misses) == 6


def test_gold_paper_missing_from_the_graph_is_an_error(gold_file: Path) -> None:
    with pytest.raises(InputError, match=r"gold paper 2 .*is not in the graph"):
        evaluate(load_gold(gold_file), {"a": ABSTRACT_A}, PREDICTED)


def test_load_gold_rejects_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"papers": [{"n": 1}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json.*not a gold annotation file"):
        load_gold(bad)


def test_is_paper_gold(gold_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "scierc.json"
    other.write_text('{"doc_key": "x", "sentences": []}\n', encoding="utf-8")
    assert is_paper_gold(gold_file) is True
    assert is_paper_gold(other) is False


# --- the same through a graph file and `kg eval` -------------------------------------------


def _mention(paper: Paper, text: str, role: Role, part: Field = Field.ABSTRACT) -> Mention:
    field_text = paper.text(part)
    start = field_text.index(text)
    return Mention(text=text, label=text, span=Span(part, start, start + len(text)),
                   sentence=Span(part, 0, len(field_text)), ctype=ConceptType.CONCEPT,
                   role=role, extractor="rules")


def hand_made_corpus() -> Corpus:
    """The predictions above as a corpus, plus a keyword-only link (never a prediction)."""
    a = Paper(id="a", abstract=ABSTRACT_A)
    b = Paper(id="b", abstract=ABSTRACT_B, keywords=("software agents",))
    c = Paper(id="c", abstract=ABSTRACT_C)
    concepts = {
        c.key: c for c in [
            Concept("long question coreference adaptation",
                    "Long Question Coreference Adaptation", ConceptType.METHOD,
                    ("LQCA",), ("LQCA",)),
            Concept("gpt 4o", "GPT-4o", ConceptType.METHOD),
            Concept("large language model", "large language model", ConceptType.MODEL,
                    ("LLM", "LLMs"), ("LLM",)),
            Concept("coreference", "coreference", ConceptType.CONCEPT),
            Concept("dei", "DEI", ConceptType.METHOD),
            Concept("swe bench lite", "SWE-bench Lite", ConceptType.DATASET),
            Concept("agent", "agents", ConceptType.CONCEPT),
            Concept("software agent", "software agents", ConceptType.CONCEPT),
        ]
    }
    links = [
        Link("a", "long question coreference adaptation", Role.PROPOSES,
             (_mention(a, "Long Question Coreference Adaptation", Role.PROPOSES),)),
        Link("a", "gpt 4o", Role.USES, (_mention(a, "GPT-4o", Role.USES),)),
        Link("a", "large language model", Role.USES, (_mention(a, "LLMs", Role.USES),)),
        Link("a", "coreference", Role.MENTIONS, (_mention(a, "coreference", Role.MENTIONS),)),
        Link("b", "dei", Role.USES, (_mention(b, "DEI", Role.USES),)),
        Link("b", "swe bench lite", Role.EVALUATES_ON,
             (_mention(b, "SWE-bench Lite", Role.EVALUATES_ON),)),
        Link("b", "agent", Role.PROPOSES, (_mention(b, "agents", Role.PROPOSES),)),
        Link("b", "software agent", Role.MENTIONS,
             (_mention(b, "software agents", Role.MENTIONS, Field.KEYWORDS),)),
        Link("c", "gpt 4o", Role.USES, (_mention(c, "GPT-4o", Role.USES),)),
    ]
    return Corpus(papers=[a, b, c], concepts=concepts, links=links)


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.ttl"
    write_graph(build_triples(hand_made_corpus()), path, GraphFormat.TURTLE)
    return path


def test_corpus_predictions_skip_keyword_only_links() -> None:
    abstracts, preds = predictions_from_corpus(hand_made_corpus())
    assert abstracts == ABSTRACTS
    assert sorted(p.labels[0] for p in preds["b"]) == ["DEI", "SWE-bench Lite", "agents"]


def test_graph_predictions_match_the_corpus_ones(graph_file: Path) -> None:
    abstracts, preds = predictions_from_graph(graph_file)
    assert sorted(abstracts.values()) == sorted(ABSTRACTS.values())
    by_abstract = {abstracts[iri]: sorted(preds.get(iri, []), key=lambda p: p.labels)
                   for iri in abstracts}
    corpus_abstracts, corpus_preds = predictions_from_corpus(hand_made_corpus())
    for pid, abstract in corpus_abstracts.items():
        assert by_abstract[abstract] == sorted(corpus_preds[pid], key=lambda p: p.labels)


def test_kg_eval_prints_the_report(graph_file: Path, gold_file: Path) -> None:
    result = CliRunner().invoke(main, ["eval", "graph", str(graph_file), str(gold_file)])
    assert result.exit_code == 0, result.output
    # The graph typed "DEI" Method and found "SWE-bench Lite": the same counts as above.
    assert result.stdout == f"{SUMMARY}\n{DETAILS}\n"


def test_kg_eval_no_details(graph_file: Path, gold_file: Path) -> None:
    args = ["eval", "graph", "--no-details", str(graph_file), str(gold_file)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stdout == SUMMARY + "\n"


def test_kg_eval_bad_gold_is_a_clean_error(graph_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "gold.json"
    bad.write_text('{"papers": [{"concepts": []}]}', encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "graph", str(graph_file), str(bad)], prog_name="kg")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert result.stderr.startswith("kg eval graph: error: ")
    assert "gold.json" in result.stderr and "not a gold annotation file" in result.stderr


def test_kg_eval_graph_needs_both_files(graph_file: Path) -> None:
    missing = CliRunner().invoke(main, ["eval", "graph", str(graph_file), "no-such-gold.json"])
    assert missing.exit_code == 2
    assert "no-such-gold.json" in missing.stderr
