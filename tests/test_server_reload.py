"""Issue 15: `kg serve` follows its source. When the graph file or the store is rebuilt under a
running server, the query workers open the new data and the cached pages are rebuilt from it,
with no failed request on the way."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kg.query.store import load_store

GRAPH = Path(__file__).parent / "fixtures" / "query_graph.ttl"
NEW_PAPER = """
<https://w3id.org/paperkg/resource/paper/p9> a <https://schema.org/ScholarlyArticle> ;
    <http://purl.org/dc/terms/title> "Reloaded Zebra Diffusion" ;
    <https://schema.org/datePublished> "2025"^^<http://www.w3.org/2001/XMLSchema#gYear> ;
    <https://w3id.org/paperkg/ontology#uses>
        <https://w3id.org/paperkg/resource/concept/diffusion-model> ;
    <https://w3id.org/paperkg/ontology#mentions>
        <https://w3id.org/paperkg/resource/concept/diffusion-model> .
"""
PAPERS_USING = "/queries/papers-using?" + urllib.parse.urlencode({"concept": "diffusion model"})
GRAPH_PAGE = "/graph?" + urllib.parse.urlencode(
    {"query": "papers-using", "concept": "diffusion model"}
)


def _titles(http_request: Any, base: str) -> list[str]:
    status, _, body = http_request(
        base + PAPERS_USING, headers={"Accept": "application/sparql-results+json"}
    )
    assert status == 200, body
    return sorted(b["title"]["value"] for b in json.loads(body)["results"]["bindings"])


def _wait_for(condition: Callable[[], bool], seconds: float = 180) -> None:
    """Poll a real condition (no fixed sleep): the reload takes as long as opening the source
    takes on this machine."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server did not pick up the new source"
        time.sleep(0.2)


def _write_new_graph(target: Path) -> None:
    """The fixture graph plus one paper, put in place atomically as `kg build` does."""
    partial = target.with_name(".new-" + target.name)
    partial.write_text(GRAPH.read_text(encoding="utf-8") + NEW_PAPER, encoding="utf-8")
    os.replace(partial, target)


@pytest.mark.server
@pytest.mark.parametrize("kind", ["file", "store"])
def test_a_rebuilt_source_is_served_without_a_restart(
    kind: str, tmp_path: Path, kg_server: Callable[..., Any], http_request: Any
) -> None:
    graph = tmp_path / "graph.ttl"
    graph.write_text(GRAPH.read_text(encoding="utf-8"), encoding="utf-8")
    if kind == "store":
        load_store(tmp_path / "graph.db", graph)
        server = kg_server("--store", str(tmp_path / "graph.db"))
    else:
        server = kg_server(str(graph))
    before = _titles(http_request, server.base)
    assert "Reloaded Zebra Diffusion" not in before
    # Answers are cached per source version (the second one says so).
    _, headers, _ = http_request(server.base + PAPERS_USING)
    assert headers["Server-Timing"] == "cache;desc=hit"
    status, _, page = http_request(server.base + GRAPH_PAGE)
    assert status == 200 and b"Reloaded Zebra Diffusion" not in page

    # Clients keep querying while the source is replaced: none of them may fail.
    failures: list[int] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            status, _, _ = http_request(server.base + PAPERS_USING)
            if status != 200:
                failures.append(status)

    clients = [threading.Thread(target=client) for _ in range(3)]
    for thread in clients:
        thread.start()
    try:
        _write_new_graph(graph)
        if kind == "store":
            load_store(tmp_path / "graph.db", graph)
        _wait_for(lambda: "Reloaded Zebra Diffusion" in _titles(http_request, server.base))
    finally:
        stop.set()
        for thread in clients:
            thread.join()
    assert failures == []
    assert _titles(http_request, server.base) == sorted([*before, "Reloaded Zebra Diffusion"])
    # The cached page is rebuilt from the new data.
    status, _, page = http_request(server.base + GRAPH_PAGE)
    assert status == 200 and b"Reloaded Zebra Diffusion" in page


@pytest.mark.server
def test_a_source_that_cannot_be_opened_keeps_the_old_data_served(
    tmp_path: Path, kg_server: Callable[..., Any], http_request: Any
) -> None:
    graph = tmp_path / "graph.ttl"
    graph.write_text(GRAPH.read_text(encoding="utf-8"), encoding="utf-8")
    server = kg_server(str(graph))
    before = _titles(http_request, server.base)
    broken = tmp_path / ".broken.ttl"
    broken.write_text("this is not Turtle <<<", encoding="utf-8")
    os.replace(broken, graph)
    # The server says it could not reload, and goes on serving what it had.
    _wait_for(lambda: any("the source changed but cannot be opened" in line
                          for line in server.log))
    assert _titles(http_request, server.base) == before
