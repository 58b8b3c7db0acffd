"""No query makes paperkg fetch a URL (issue 13, SSRF): a corpus of evasions of the SERVICE /
FROM / LOAD refusal, run on every engine and through `kg serve`, with a real listener that must
see no connection; and the engines stay offline even when the parse-tree check is bypassed."""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from kg.errors import QueryError
from kg.query import open_source
from kg.query.safety import RefusedQuery, check_query, lock_down_rdflib, nesting

GRAPH = Path(__file__).parent / "fixtures" / "query_graph.ttl"
ANSWER = json.dumps({"head": {"vars": ["a"]}, "results": {"bindings": [
    {"a": {"type": "literal", "value": "LEAKED"}}]}}).encode()


class Listener:
    """A local HTTP listener that counts the connections it accepts (and answers each with a
    SPARQL result, so a fetch that got through would also show in the query's answer)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/x"
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.settimeout(1)
                try:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
                        + f"Content-Length: {len(ANSWER)}\r\nConnection: close\r\n\r\n".encode()
                        + ANSWER
                    )
                except OSError:
                    pass

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


def _probe_reaches(listener: Listener) -> None:
    """The listener really accepts: a plain connection is counted (and then forgotten)."""
    before = listener.connections
    with socket.create_connection(("127.0.0.1", listener.port), timeout=2) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
        conn.recv(10)
    assert listener.connections == before + 1
    listener.connections = before


# {url} is the listener's URL, {host} its host:port. Every one must be refused.
P = "PREFIX e: <http://e.example/> "
EVASIONS: list[str] = [
    "SELECT * WHERE { SERVICE <{url}> { ?a ?b ?c } }",
    # the repro: an escaped quote in a local name hid the rest from the token scanner
    P + "SELECT * WHERE { OPTIONAL { ?s e:p\\' ?o } SERVICE <{url}> { ?a ?b ?c } "
    "FILTER(?a != 'x') }",
    P + 'SELECT * WHERE { ?s e:p\\" ?o . SERVICE <{url}> { ?a ?b ?c } }',
    "select * where { service <{url}> { ?a ?b ?c } }",
    "SeLeCt * WhErE { SeRvIcE <{url}> { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE SILENT <{url}> { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE#comment }\n<{url}> { ?a ?b ?c } }",
    "SELECT * WHERE {\tSERVICE\r\n<{url}>\n{ ?a ?b ?c } }",
    "SELECT * WHERE { ?s ?p ?o OPTIONAL { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { { ?s ?p ?o } UNION { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { { SELECT ?a WHERE { SERVICE <{url}> { ?a ?b ?c } } } }",
    "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { ?s ?p ?o FILTER NOT EXISTS { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { ?s ?p ?o MINUS { SERVICE <{url}> { ?s ?b ?c } } }",
    "SELECT * WHERE { GRAPH ?g { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { GRAPH <http://g.example/> { SERVICE <{url}> { ?a ?b ?c } } }",
    "PREFIX s: <http://{host}/> SELECT * WHERE { SERVICE s:x { ?a ?b ?c } }",
    "BASE <http://{host}/> SELECT * WHERE { SERVICE <x> { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE <http\\u003A//{host}/x> { ?a ?b ?c } }",
    "SELECT * WHERE { \\u0053ERVICE <{url}> { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE <http://{host}/\\U00000078> { ?a ?b ?c } }",
    'SELECT * WHERE { ?s ?p "}#{" . SERVICE <{url}> { ?a ?b ?c } }',
    "SELECT * WHERE { ?s ?p '''a\"\"\"' . SERVICE <{url}> { ?a ?b ?c } }",
    'SELECT * WHERE { ?s ?p """x\'y""" . SERVICE <{url}> { ?a ?b ?c } }',
    "SELECT * WHERE { BIND(<{url}> AS ?u) SERVICE ?u { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE <{url}> { SERVICE <{url}> { ?a ?b ?c } } }",
    "SELECT * WHERE { { { { { SERVICE <{url}> { ?a ?b ?c } } } } } }",
    "CONSTRUCT { ?a ?b ?c } WHERE { SERVICE <{url}> { ?a ?b ?c } }",
    "ASK { SERVICE <{url}> { ?a ?b ?c } }",
    "DESCRIBE ?a WHERE { SERVICE <{url}> { ?a ?b ?c } }",
    "SELECT * WHERE { SERVICE <{url}#> { ?a ?b ?c } } LIMIT 1",
    "SELECT * FROM <{url}> WHERE { ?s ?p ?o }",
    "SELECT * FROM NAMED <{url}> WHERE { GRAPH ?g { ?s ?p ?o } }",
    "select * from <{url}> where { ?s ?p ?o }",
    "PREFIX s: <http://{host}/> SELECT * FROM s:x WHERE { ?s ?p ?o }",
    "CONSTRUCT { ?s ?p ?o } FROM <{url}> WHERE { ?s ?p ?o }",
    "ASK FROM <{url}> { ?s ?p ?o }",
    "DESCRIBE ?s FROM NAMED <{url}> WHERE { GRAPH <{url}> { ?s ?p ?o } }",
    P + "SELECT * FROM <{url}> WHERE { ?s e:p\\' ?o }",
    "LOAD <{url}>",
    "LOAD SILENT <{url}> INTO GRAPH <http://g.example/>",
    "SELECT * WHERE { ?s ?p ?o } ; LOAD <{url}>",
    "SELECT * WHERE { ?s ?p ?o }\nLOAD <{url}>",
]
# Allowed, as they only name IRIs: they must not fetch either.
HARMLESS = [
    "DESCRIBE <{url}>",
    "SELECT * WHERE { GRAPH <{url}> { ?s ?p ?o } }",
    "BASE <{url}> SELECT * WHERE { ?s <p> ?o }",
    "SELECT * WHERE { BIND(IRI('{url}') AS ?x) }",
]


def _fill(template: str, listener: Listener) -> str:
    return template.replace("{url}", listener.url).replace("{host}", f"127.0.0.1:{listener.port}")


def test_the_corpus_is_big_enough() -> None:
    assert len(EVASIONS) >= 30


@pytest.mark.parametrize("template", EVASIONS)
def test_the_parse_tree_check_refuses_every_evasion(template: str, listener: Listener) -> None:
    with pytest.raises(QueryError):
        check_query(_fill(template, listener))
    assert listener.connections == 0


def test_safe_queries_pass_the_check() -> None:
    from kg.query import named

    for query in named.all_queries():
        check_query(query.text)
    check_query('SELECT * WHERE { ?s ?p "SERVICE <http://x/> FROM <http://y/>" } # SERVICE')
    check_query("PREFIX service: <http://e/> SELECT ?from WHERE { ?from service:from ?x }")


def _backends(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """open_source arguments of every engine: rdflib (triples, quads), Oxigraph (memory, disk)."""
    from kg.query.store import load_store

    root = tmp_path_factory.mktemp("backends")
    trig = root / "graph.trig"
    trig.write_bytes(
        ox.serialize(
            [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode("http://g.example/"))
             for t in ox.parse(path=str(GRAPH))],
            format=ox.RdfFormat.TRIG,
        )
        or b""
    )
    load_store(root / "store", GRAPH)
    return {
        "rdflib-turtle": {"source": str(GRAPH), "engine": "rdflib"},
        "rdflib-trig": {"source": str(trig), "engine": "rdflib"},
        "oxigraph-memory": {"source": str(GRAPH), "engine": "oxigraph"},
        "oxigraph-store": {"source": str(root / "store")},
    }


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    return _backends(tmp_path_factory)


BACKENDS = ["rdflib-turtle", "rdflib-trig", "oxigraph-memory", "oxigraph-store"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_engine_fetches_for_any_evasion(
    backend: str, backends: dict[str, dict[str, str]], listener: Listener
) -> None:
    _probe_reaches(listener)
    with open_source(**backends[backend]) as source:  # type: ignore[arg-type]
        for template in EVASIONS:
            with pytest.raises(QueryError):
                source.query(_fill(template, listener))
        for template in HARMLESS:
            with contextlib.suppress(QueryError):  # a refusal is fine too; a fetch is not
                source.query(_fill(template, listener))
    assert listener.connections == 0


# --- through the endpoint ----------------------------------------------------------------------
@pytest.mark.server
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_endpoint_refuses_every_evasion(
    backend: str,
    backends: dict[str, dict[str, str]],
    listener: Listener,
    kg_server: Callable[..., Any],
    http_request: Callable[..., tuple[int, dict[str, str], bytes]],
) -> None:
    args = backends[backend]
    options = ["--engine", args["engine"]] if "engine" in args else []
    # What is asserted is the refusal, not speed: a generous query time limit. The check runs
    # in the query worker, inside the limit; at load 12 one run got 503 ("query ran longer
    # than the 30 s limit") where the check answers 400/403.
    server = kg_server(args["source"], *options, "--timeout", "600")
    fetch = http_request
    for template in [*EVASIONS, *HARMLESS]:
        query = _fill(template, listener)
        for method in ("GET", "POST"):
            if method == "GET":
                url = server.sparql + "?" + urllib.parse.urlencode({"query": query})
                status, _, body = fetch(url)
            else:
                status, _, body = fetch(
                    server.sparql,
                    method="POST",
                    data=query.encode(),
                    headers={"Content-Type": "application/sparql-query"},
                )
            assert b"LEAKED" not in body
            if template in EVASIONS:
                assert status in (400, 403), (template, status, body)
    assert listener.connections == 0


# --- defence in depth: the engines stay offline without the check ------------------------------
def test_rdflib_cannot_fetch_even_without_the_check(
    monkeypatch: pytest.MonkeyPatch, listener: Listener
) -> None:
    import rdflib

    import kg.query.sources as sources

    _probe_reaches(listener)
    from rdflib.plugins.sparql.parser import parseQuery

    monkeypatch.setattr(sources, "checked_tree", parseQuery)  # the parse without the check
    sources._prepared.cache_clear()
    lock_down_rdflib()
    dataset = rdflib.Dataset(default_union=True)
    dataset.parse(GRAPH)
    source = sources.RdflibSource(dataset, "bypassed")
    for query in (
        f"SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?a ?b ?c }} }}",
        f"SELECT * FROM <{listener.url}> WHERE {{ ?s ?p ?o }}",
        f"SELECT * FROM NAMED <{listener.url}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    ):
        try:
            rows = source.query(query).rows
        except QueryError as exc:
            assert isinstance(exc, RefusedQuery)
        else:
            assert all("LEAKED" not in str(row) for row in rows)
    sources._prepared.cache_clear()
    assert listener.connections == 0


def _sandboxed_query(url: str, results: mp.Queue) -> None:  # type: ignore[type-arg]
    from kg.query.safety import sandbox_process

    isolated = sandbox_process()
    outcome = []
    for query in (
        f"SELECT * WHERE {{ SERVICE <{url}> {{ ?a ?b ?c }} }}",
        f"SELECT * FROM <{url}> WHERE {{ ?s ?p ?o }}",
    ):
        try:
            outcome.append(str(list(ox.Store().query(query))))  # the check is not called
        except (OSError, SyntaxError, RuntimeError) as exc:
            outcome.append(type(exc).__name__)
    import urllib.request

    try:
        urllib.request.urlopen(url, timeout=2)
        outcome.append("fetched")
    except (OSError, QueryError) as exc:
        outcome.append(type(exc).__name__)
    results.put((isolated, outcome))


def test_a_sandboxed_worker_cannot_reach_the_network(listener: Listener) -> None:
    """What `kg serve`'s query workers do first: Oxigraph (native code) and Python both fail to
    connect, though the query goes straight to the engine."""
    _probe_reaches(listener)
    context = mp.get_context("spawn")
    results: mp.Queue = context.Queue()  # type: ignore[type-arg]
    process = context.Process(target=_sandboxed_query, args=(listener.url, results))
    process.start()
    isolated, outcome = results.get(timeout=60)
    process.join(timeout=30)
    assert isolated, "the kernel refused an unprivileged network namespace"
    assert "LEAKED" not in str(outcome) and "fetched" not in outcome
    assert listener.connections == 0


def test_deep_nesting_is_refused_before_parsing() -> None:
    deep = "SELECT * WHERE " + "{" * 10_000 + " ?s ?p ?o " + "}" * 10_000
    assert nesting(deep) == 10_000
    with pytest.raises(QueryError, match="nested 10000 levels deep"):
        check_query(deep)
    parens = "SELECT * WHERE { FILTER(" + "(" * 90 + "1" + ")" * 90 + ") }"
    check_query(parens)  # deep but within the limit: the parser copes
