"""The named queries over `kg analyze`'s output (emerging-concepts, communities, community,
concept-trend, related-concepts, similar-papers) on the analysed hand-made graph
(tests/fixtures/analyze_graph.py), with the same expected rows on rdflib, Oxigraph in memory
and the Oxigraph store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.query import open_source, run_named
from kg.query.formats import compact
from kg.query.sources import Source
from kg.query.store import load_store

FIXTURES = Path(__file__).parent / "fixtures"
GRAPH = FIXTURES / "analyze_graph.ttl"
EXPECTED = json.loads((FIXTURES / "analyze_expected.json").read_text(encoding="utf-8"))
CASES = [(name, case) for name, cases in EXPECTED.items() for case in cases]
ENGINES = ["rdflib", "oxigraph-memory", "oxigraph-store"]
ANALYTICS_QUERIES = ["communities", "community", "concept-trend", "emerging-concepts",
                     "related-concepts", "similar-papers"]


@pytest.fixture(scope="module", params=ENGINES)
def source(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Source:
    if request.param == "oxigraph-store":
        store = tmp_path_factory.mktemp("store") / "graph.db"
        load_store(store, GRAPH)
        opened = open_source(store=store)
    else:
        opened = open_source(GRAPH, engine=request.param.split("-")[0])
    request.addfinalizer(opened.close)
    return opened


@pytest.mark.parametrize(
    ("name", "case"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_analytics_query_gives_the_expected_rows(source: Source, name: str, case: dict) -> None:
    result = run_named(source, name, case["params"])
    assert list(result.variables) == case["columns"]
    assert [[compact(term) for term in row] for row in result.rows] == case["rows"]


def test_every_analytics_query_is_covered() -> None:
    assert sorted(EXPECTED) == ANALYTICS_QUERIES


def test_known_answers_show_in_the_rows(source: Source) -> None:
    """The planted answers, read as a user would: the doubling concept emerges, the two
    planted communities differ, the highest-overlap pair comes first."""
    emerging = run_named(source, "emerging-concepts").dicts()
    assert [row["label"].value for row in emerging] == ["rising method"]
    assert float(emerging[0]["growth"].value) == 1.0
    segmentation = run_named(source, "community", {"concept": "U-Net"}).dicts()
    translation = run_named(source, "community", {"concept": "BLEU"}).dicts()
    assert segmentation[0]["community"] != translation[0]["community"]
    assert {r["label"].value for r in translation if r["kind"].value == "concept"} == {
        "machine translation", "Transformer", "WMT14", "BLEU"}
    similar = run_named(source, "similar-papers", {"paper": "t23-9"}).dicts()
    assert compact(similar[0]["other"]) == "paper/t24-8"
