"""The relation named queries on a graph built from `tests/fixtures/relations_corpus.py`.

The graph comes from the real builder (`kg.rdf.build_triples`), so the queries are tested
against the contract as the builder writes it; each runs on rdflib, Oxigraph in memory and the
Oxigraph store, with the same expected rows (`tests/fixtures/relations_expected.json`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import kg.query.named as queries
from kg.query import run_named
from kg.query.formats import compact
from kg.query.sources import Source
from kg.rdf import GraphFormat, build_triples, serialize_graph

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "relations_expected.json").read_text(encoding="utf-8"))
CASES = [(name, case) for name, cases in EXPECTED.items() for case in cases]
RELATION_QUERIES = [
    "methods-for-task", "models-based-on", "outperforms", "compared-with", "evaluated-on-datasets",
    "relation-evidence",
]  # fmt: skip
ENGINES = ["rdflib", "oxigraph-memory", "oxigraph-store"]


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory, relations_fixture: ModuleType) -> Path:
    corpus = relations_fixture.relations_corpus()
    path = tmp_path_factory.mktemp("relations") / "graph.ttl"
    path.write_bytes(serialize_graph(build_triples(corpus), GraphFormat.TURTLE))
    return path


@pytest.fixture(scope="module", params=ENGINES)
def source(request: pytest.FixtureRequest, graph_file: Path,
           open_engine: Callable[[Path, str], Source]) -> Source:
    opened = open_engine(graph_file, request.param)
    request.addfinalizer(opened.close)
    return opened


@pytest.mark.parametrize(
    ("name", "case"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_relation_query_gives_the_expected_rows(source: Source, name: str, case: dict) -> None:
    result = run_named(source, name, case["params"])
    assert list(result.variables) == case["columns"]
    assert [[compact(term) for term in row] for row in result.rows] == case["rows"]


def test_every_relation_query_has_expected_results_and_a_working_example(
    source: Source,
) -> None:
    assert sorted(EXPECTED) == sorted(RELATION_QUERIES)
    for name in RELATION_QUERIES:
        named = queries.get(name)
        assert named.form == "SELECT"
        assert len(run_named(source, name, named.example)) > 0, name


def test_a_hostile_label_matches_nothing(source: Source) -> None:
    value = 'GPT-4o" } UNION { ?winner ?p ?loser } #'
    assert len(run_named(source, "outperforms", {"concept": value})) == 0
    assert len(run_named(source, "relation-evidence", {"subject": value, "object": "x"})) == 0
