"""Issue 13's endpoint and output findings, each reproduced: what a query, a request or a
result may not do."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.query import open_source

GRAPH = Path(__file__).parent / "fixtures" / "query_graph.ttl"


def test_the_label_index_graph_is_not_visible_through_graph(tmp_path: Path) -> None:
    from kg.query.labels import INDEX_GRAPH
    from kg.query.store import load_store

    load_store(tmp_path / "store", GRAPH)
    for args in ({"store": tmp_path / "store"}, {"source": GRAPH, "engine": "oxigraph"}):
        with open_source(**args) as source:  # type: ignore[arg-type]
            graphs = source.select("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
            assert INDEX_GRAPH not in [row["g"] for row in graphs]
            ask = source.query(f"ASK {{ GRAPH {INDEX_GRAPH} {{ ?s ?p ?o }} }}")
            assert ask.boolean is False


@pytest.mark.parametrize("engine", ["rdflib", "oxigraph"])
def test_graph_on_a_file_without_named_graphs_is_a_query_error(engine: str) -> None:
    from kg.errors import QueryError

    with open_source(GRAPH, engine=engine) as source:
        try:
            result = source.query("SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }")
        except QueryError:
            return
        assert result.rows == []
