"""Issue 13's endpoint and output findings, each reproduced: what a query, a request or a
result may not do."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import types
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
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


# --- the endpoint: origin, host, paths, HEAD, request framing, load ----------------------------
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def _raw(base: str, request: bytes) -> bytes:
    """Send raw bytes to the server and read the whole answer (the server closes)."""
    host, port = urllib.parse.urlsplit(base).netloc.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.server
def test_cors_only_for_the_origins_given(kg_server: Callable[..., Any], http_request: Any) -> None:
    server = kg_server(str(GRAPH), "--cors", "http://lab.example")
    ask = server.sparql + "?query=ASK%7B%7D"
    _, headers, _ = http_request(ask, headers={"Origin": "http://lab.example"})
    assert headers["Access-Control-Allow-Origin"] == "http://lab.example"
    assert headers["Vary"] == "Origin"
    _, headers, _ = http_request(ask, headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in headers


@pytest.mark.server
def test_host_header_must_name_this_server(kg_server: Callable[..., Any]) -> None:
    server = kg_server(str(GRAPH), "--allow-host", "kg.lab.example")
    port = int(server.base.rsplit(":", 1)[1])
    answers = {}
    for host in (
        f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST.:{port}",
        "kg.lab.example", f"evil.example:{port}", "evil.example", f"localhost:{port + 1}",
        f"127.0.0.1:{port}@evil.example", "",
    ):
        answer = _raw(server.base, f"GET /health HTTP/1.1\r\nHost: {host}\r\n"
                                   "Connection: close\r\n\r\n".encode())
        answers[host] = int(answer.split()[1])
    assert answers == {
        f"127.0.0.1:{port}": 200, f"localhost:{port}": 200, f"[::1]:{port}": 200,
        f"LOCALHOST.:{port}": 200, "kg.lab.example": 200, f"evil.example:{port}": 421,
        "evil.example": 421, f"localhost:{port + 1}": 421, f"127.0.0.1:{port}@evil.example": 421,
        "": 421,
    }


@pytest.mark.server
def test_no_file_path_in_any_answer(
    kg_server: Callable[..., Any], http_request: Any, tmp_path: Path
) -> None:
    from kg.query.store import load_store

    load_store(tmp_path / "graph.db", GRAPH)
    for args in ([str(GRAPH)], ["--store", str(tmp_path / "graph.db")]):
        server = kg_server(*args)
        for path in ("/health", "/", "/graph?view=concepts&max_nodes=5", "/queries"):
            status, _, body = http_request(server.base + path)
            assert status in (200, 503), (path, status)
            assert str(GRAPH.parent).encode() not in body and str(tmp_path).encode() not in body
        status, _, body = http_request(server.base + "/health")
        assert body.decode().startswith("ok: ") and Path(args[-1]).name in body.decode()


@pytest.mark.server
def test_head_is_get_without_a_body(kg_server: Callable[..., Any]) -> None:
    server = kg_server(str(GRAPH))
    for path in ("/", "/health", "/sparql?query=ASK%7B%7D", "/queries"):
        answer = _raw(server.base, f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   "Connection: close\r\n\r\n".encode())
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.split()[1] == b"200", path
        length = re.search(rb"Content-Length: (\d+)", head)
        assert length and int(length[1]) > 0 and body == b""


@pytest.mark.server
@pytest.mark.parametrize("length", ["-1", "+5", " 5x", "99999999999999999999", "5, 6"])
def test_invalid_content_lengths_are_refused(kg_server_module: Any, length: str) -> None:
    server = kg_server_module
    body = b"ASK {}"
    answer = _raw(
        server.base,
        b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
        + f"Content-Length: {length}\r\n\r\n".encode() + body,
    )
    status = int(answer.split()[1])
    assert status in (400, 413), answer
    duplicate = _raw(
        server.base,
        b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
        b"Content-Length: 6\r\nContent-Length: 60\r\n\r\n" + body,
    )
    assert int(duplicate.split()[1]) == 400


@pytest.fixture(scope="module")
def kg_server_module() -> Iterator[Any]:
    """One `kg serve` of the test graph for the tests that do not change its options."""
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("kg")), "serve", str(GRAPH), "--port", "0",
         "--timeout", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    base = next(
        line.split()[-1].removesuffix("/sparql")
        for line in process.stdout
        if line.startswith("SPARQL endpoint: ")
    )
    server = types.SimpleNamespace(base=base, sparql=base + "/sparql", process=process)
    try:
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.server
def test_a_deeply_nested_query_is_refused_and_kills_no_worker(kg_server_module: Any) -> None:
    server = kg_server_module
    workers = {c.pid for c in psutil.Process(server.process.pid).children(recursive=True)}
    for opening, closing in (("{", "}"), ("(", ")")):
        depth = 10_000
        inner = " ?s ?p ?o " if opening == "{" else "1"
        query = ("SELECT * WHERE " + opening * depth + inner + closing * depth
                 if opening == "{" else
                 "SELECT * WHERE { FILTER(" + opening * depth + inner + closing * depth + ") }")
        data = urllib.parse.urlencode({"query": query}).encode()
        request = urllib.request.Request(server.sparql, data=data, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        assert status == 400 and re.search(rb"nested 1000[0-9] levels deep", body)
    assert _get(server.sparql + "?query=ASK%7B%7D")[0] == 200
    after = {c.pid for c in psutil.Process(server.process.pid).children(recursive=True)}
    assert after == workers


@pytest.mark.server
def test_two_slow_queries_do_not_hold_up_fast_ones(kg_server_module: Any) -> None:
    """Two queries that run to the 10 s limit; meanwhile 20 fast queries are all answered
    (in order of events: every fast answer arrives while both slow ones still run)."""
    server = kg_server_module
    slow_url = server.sparql + "?" + urllib.parse.urlencode({"query": SLOW})
    slow_answers: list[int] = []
    slow = [threading.Thread(target=lambda: slow_answers.append(_get(slow_url)[0]))
            for _ in range(2)]
    for thread in slow:
        thread.start()
    fast_url = server.sparql + "?" + urllib.parse.urlencode(
        {"query": "SELECT ?l WHERE { ?c <http://www.w3.org/2004/02/skos/core#prefLabel> ?l } "
                  "LIMIT 3"})
    statuses = [_get(fast_url)[0] for _ in range(20)]
    still_running = [thread.is_alive() for thread in slow]
    for thread in slow:
        thread.join()
    assert statuses == [200] * 20
    assert still_running == [True, True]
    assert slow_answers == [503, 503]


@pytest.mark.server
def test_named_queries_have_a_lane_that_slow_sparql_never_fills(kg_server_module: Any) -> None:
    """Five slow queries: more than the SPARQL lane's two workers and two spares, so one of
    them waits; meanwhile 20 named queries (each a different request: no cache) are all
    answered, while every slow one still runs or waits."""
    server = kg_server_module
    slow_answers: list[int] = []
    slow = [
        threading.Thread(target=lambda i=i: slow_answers.append(_get(
            server.sparql + "?" + urllib.parse.urlencode({"query": f"{SLOW} # {i}"}))[0]))
        for i in range(5)
    ]
    for thread in slow:
        thread.start()
    statuses = [
        _get(server.base + "/queries/papers-using?" + urllib.parse.urlencode(
            {"concept": "diffusion model", "limit": str(rows)}))[0]
        for rows in range(1, 21)
    ]
    still_running = [thread.is_alive() for thread in slow]
    for thread in slow:
        thread.join()
    assert statuses == [200] * 20
    assert still_running == [True] * 5
    assert sorted(slow_answers) == [503] * 5


@pytest.mark.server
def test_the_sparql_lane_runs_at_a_lower_cpu_priority(kg_server: Callable[..., Any]) -> None:
    """Two lanes of 2 workers + 2 spares: the /sparql lane's at niceness 10, the named queries'
    at the server's own."""
    from kg.server import SPARQL_NICE

    server = kg_server(str(GRAPH))
    own = psutil.Process(server.process.pid).nice()
    workers = [c for c in psutil.Process(server.process.pid).children()
               if "resource_tracker" not in " ".join(c.cmdline())]
    assert sorted(c.nice() for c in workers) == [own] * 4 + [own + SPARQL_NICE] * 4, [
        (c.pid, c.nice(), c.status()) for c in workers]
