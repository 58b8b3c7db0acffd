"""`kg serve`: the SPARQL 1.1 Protocol endpoint, tested live over HTTP (SPARQLWrapper and raw
requests) and the query page in a real browser."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pyoxigraph as ox
import pytest

pytestmark = pytest.mark.server

GRAPH = Path(__file__).parent / "fixtures" / "query_graph.ttl"
KG = Path(sys.executable).with_name("kg")
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
ROWS = (
    "PREFIX skos: <http://www.w3.org/2004/02/skos/core#> SELECT ?c WHERE { ?c skos:prefLabel ?l }"
)


@dataclass
class Server:
    base: str
    process: subprocess.Popen[str]

    @property
    def sparql(self) -> str:
        return self.base + "/sparql"


def start_server(*options: str) -> Server:
    """`kg serve` on a free port (--port 0; the port is read from its announcement)."""
    process = subprocess.Popen(
        [str(KG), "serve", str(GRAPH), "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base = None
    for line in process.stdout:
        if line.startswith("SPARQL endpoint: "):
            base = line.split()[-1].removesuffix("/sparql")
            break
    if base is None:
        process.wait(timeout=10)
        raise RuntimeError(
            f"kg serve did not start: {process.stderr.read() if process.stderr else ''}"
        )
    # Read its stderr as it comes: the access log would fill an unread pipe and block it.
    threading.Thread(target=lambda: process.stderr and process.stderr.read(), daemon=True).start()
    deadline = time.monotonic() + 30
    while True:  # poll until it answers
        try:
            urllib.request.urlopen(base + "/health", timeout=1).close()
            return Server(base, process)
        except OSError:
            if time.monotonic() > deadline:
                stop_server(Server(base, process))
                raise
            time.sleep(0.05)


def stop_server(server: Server) -> list[int]:
    """SIGTERM, wait, and return the pids of its workers (which must be gone too)."""
    workers = [c.pid for c in psutil.Process(server.process.pid).children(recursive=True)]
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    return workers


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    # 5 s: a cold worker's first /graph page takes ~2 s on a busy 2-core machine.
    running = start_server(
        "--timeout", "5", "--max-rows", "20", "--max-request-bytes", "4096", "--page-rows", "3"
    )
    try:
        yield running
    finally:
        workers = stop_server(running)
        deadline = time.monotonic() + 10
        while (
            any(
                psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                for p in workers
            )
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert not [
            p
            for p in workers
            if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
        ]


def fetch(
    url: str,
    *,
    method: str = "GET",
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers.items()), exc.read()


def get(
    server: Server, query: str, accept: str | None = None, **extra: str
) -> tuple[int, dict[str, str], bytes]:
    params = urllib.parse.urlencode({"query": query, **extra})
    return fetch(f"{server.sparql}?{params}", headers={"Accept": accept} if accept else {})


# --- a standard client -----------------------------------------------------------------------
def test_sparqlwrapper_select_ask_construct(server: Server) -> None:
    from SPARQLWrapper import JSON, POST, TURTLE, XML, SPARQLWrapper

    client = SPARQLWrapper(server.sparql)
    client.setQuery(
        "PREFIX kg: <https://w3id.org/paperkg/ontology#> "
        "SELECT ?a WHERE { ?c kg:acronym ?a } ORDER BY ?a LIMIT 3"
    )
    client.setReturnFormat(JSON)
    rows = client.query().convert()["results"]["bindings"]
    assert [r["a"]["value"] for r in rows] == ["EM", "FID", "FVD"]
    client.setReturnFormat(XML)
    document = client.query().convert()
    assert [n.firstChild.data for n in document.getElementsByTagName("literal")] == [
        "EM",
        "FID",
        "FVD",
    ]
    client.setMethod(POST)
    client.setReturnFormat(JSON)
    client.setQuery("ASK { ?s ?p 'GPT-4o' }")
    assert client.query().convert()["boolean"] is True
    client.setQuery(
        "CONSTRUCT { ?c ?p ?o } WHERE { ?c ?p ?o "
        "FILTER(?c = <https://w3id.org/paperkg/resource/concept/ucf-101>) }"
    )
    client.setReturnFormat(TURTLE)
    turtle = client.query().convert()
    graph = ox.parse(turtle, ox.RdfFormat.TURTLE)
    assert len(list(graph)) == 7  # 2 types, scheme, 2 labels, altLabel, paperCount


# --- content negotiation ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("accept", "media", "parser"),
    [
        (
            "application/sparql-results+json",
            "application/sparql-results+json",
            ox.QueryResultsFormat.JSON,
        ),
        (
            "application/sparql-results+xml",
            "application/sparql-results+xml",
            ox.QueryResultsFormat.XML,
        ),
        ("text/tab-separated-values", "text/tab-separated-values", ox.QueryResultsFormat.TSV),
        ("text/csv;q=0.9, application/sparql-results+xml;q=0.8", "text/csv", None),
        ("*/*", "application/sparql-results+json", ox.QueryResultsFormat.JSON),
        (None, "application/sparql-results+json", ox.QueryResultsFormat.JSON),
    ],
)
def test_select_results_by_accept_header(
    server: Server, accept: str | None, media: str, parser: ox.QueryResultsFormat | None
) -> None:
    status, headers, body = get(server, "SELECT ?x WHERE { BIND('a,b' AS ?x) }", accept)
    assert status == 200 and headers["Content-Type"].split(";")[0] == media
    if parser is None:  # CSV is lossy: pyoxigraph does not read it back
        assert body == b'x\r\n"a,b"\r\n'
        return
    parsed = ox.parse_query_results(body, parser)
    assert [s["x"].value for s in parsed] == ["a,b"]


@pytest.mark.parametrize(
    ("accept", "media"),
    [
        ("text/turtle", "text/turtle"),
        ("application/n-triples", "application/n-triples"),
        ("application/rdf+xml", "application/rdf+xml"),
        ("*/*", "text/turtle"),
    ],
)
def test_graph_results_by_accept_header(server: Server, accept: str, media: str) -> None:
    query = "CONSTRUCT WHERE { ?c <https://w3id.org/paperkg/ontology#acronym> ?a }"
    status, headers, body = get(server, query, accept)
    assert status == 200 and headers["Content-Type"] == media
    fmt = {
        "text/turtle": ox.RdfFormat.TURTLE,
        "application/n-triples": ox.RdfFormat.N_TRIPLES,
        "application/rdf+xml": ox.RdfFormat.RDF_XML,
    }[media]
    acronym = ox.NamedNode("https://w3id.org/paperkg/ontology#acronym")
    expected = sum(1 for q in ox.parse(path=str(GRAPH)) if q.predicate == acronym)
    assert expected > 0 and len(list(ox.parse(body, fmt))) == expected


def test_format_parameter_and_unacceptable_types(server: Server) -> None:
    status, _, body = get(server, "SELECT ?x { BIND(1 AS ?x) }", "image/png", format="csv")
    assert status == 200 and body == b"x\r\n1\r\n"
    status, _, body = get(server, "SELECT ?x { BIND(1 AS ?x) }", "image/png")
    assert status == 406 and b"application/sparql-results+json" in body
    status, _, body = get(server, "SELECT ?x { BIND(1 AS ?x) }", format="turtle")
    assert status == 400 and b"use one of json, xml, csv, tsv" in body


def test_post_query_and_form(server: Server) -> None:
    query = "ASK { ?s ?p 'VideoDiff' }"
    json_accept = {"Accept": "application/sparql-results+json"}
    status, _, body = fetch(
        server.sparql,
        method="POST",
        data=query.encode(),
        headers={"Content-Type": "application/sparql-query", **json_accept},
    )
    assert status == 200 and json.loads(body)["boolean"] is True
    form = urllib.parse.urlencode({"query": query}).encode()
    status, _, body = fetch(
        server.sparql,
        method="POST",
        data=form,
        headers={"Content-Type": "application/x-www-form-urlencoded", **json_accept},
    )
    assert status == 200 and json.loads(body)["boolean"] is True
    status, _, body = fetch(
        server.sparql, method="POST", data=b"x", headers={"Content-Type": "text/plain"}
    )
    assert status == 415


# --- refusals and limits ------------------------------------------------------------------
UPDATE = "INSERT DATA { <http://e/a> <http://e/b> <http://e/c> }"


@pytest.mark.parametrize(
    ("method", "path", "data", "content_type"),
    [
        ("POST", "/sparql", UPDATE, "application/sparql-update"),
        (
            "POST",
            "/sparql",
            urllib.parse.urlencode({"update": UPDATE}),
            "application/x-www-form-urlencoded",
        ),
        (
            "POST",
            "/sparql",
            urllib.parse.urlencode({"query": UPDATE}),
            "application/x-www-form-urlencoded",
        ),
        ("GET", "/sparql?" + urllib.parse.urlencode({"update": UPDATE}), None, None),
        ("POST", "/update", UPDATE, "application/sparql-update"),
    ],
)
def test_updates_are_refused_and_change_nothing(
    server: Server, method: str, path: str, data: str | None, content_type: str | None
) -> None:
    status, _, body = fetch(
        server.base + path,
        method=method,
        data=data.encode() if data else None,
        headers={"Content-Type": content_type} if content_type else {},
    )
    assert status == 403 and b"read-only" in body
    _, _, body = get(server, "ASK { <http://e/a> ?p ?o }", "application/sparql-results+json")
    assert json.loads(body)["boolean"] is False


def test_writes_by_other_methods_are_not_allowed(server: Server) -> None:
    status, headers, body = fetch(server.sparql, method="PUT", data=b"x")
    assert status == 405 and headers["Allow"] == "GET, HEAD, POST, OPTIONS" and b"read-only" in body


def test_a_syntax_error_is_a_400_with_its_position(server: Server) -> None:
    status, _, body = get(server, "SELECT * WHERE {\n ?s ?p }")
    assert status == 400 and b"SPARQL syntax error at line 2" in body


def test_service_and_from_are_refused(server: Server) -> None:
    status, _, body = get(
        server, "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"
    )
    assert status == 400 and b"SERVICE" in body
    status, _, body = get(server, "SELECT * FROM <file:///etc/passwd> WHERE { ?s ?p ?o }")
    assert status == 400 and b"FROM" in body


def test_rows_are_capped(server: Server) -> None:
    status, headers, body = get(server, ROWS, "application/sparql-results+json")
    assert status == 200 and headers["X-Paperkg-Truncated"] == "true"
    assert headers["X-Paperkg-Row-Cap"] == "20"
    assert len(json.loads(body)["results"]["bindings"]) == 20
    status, headers, _ = get(server, ROWS + " LIMIT 3", "application/sparql-results+json")
    assert status == 200 and "X-Paperkg-Truncated" not in headers


def test_request_size_is_limited(server: Server) -> None:
    big = ("SELECT * WHERE { ?s ?p ?o } #" + "x" * 5000).encode()
    status, _, body = fetch(
        server.sparql, method="POST", data=big, headers={"Content-Type": "application/sparql-query"}
    )
    assert status == 413 and b"4096-byte limit" in body


def test_cors_is_off_by_default(server: Server) -> None:
    status, headers, _ = fetch(
        server.sparql + "?query=ASK%7B%7D", headers={"Origin": "http://elsewhere.example"}
    )
    assert status == 200 and "Access-Control-Allow-Origin" not in headers
    status, headers, _ = fetch(
        server.sparql,
        method="OPTIONS",
        headers={
            "Origin": "http://elsewhere.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert status == 204
    assert "Access-Control-Allow-Origin" not in headers
    assert "Access-Control-Allow-Methods" not in headers


def test_a_query_over_the_time_limit_is_stopped(server: Server) -> None:
    before = {c.pid for c in psutil.Process(server.process.pid).children(recursive=True)}
    started = time.monotonic()
    status, _, body = get(server, SLOW)
    assert status == 503 and b"ran longer than the 5 s limit and was stopped" in body
    assert time.monotonic() - started < 15
    deadline = time.monotonic() + 30
    while True:  # the server answers again, with a fresh worker in place of the killed one
        status, _, _ = get(server, "ASK {}")
        now = {c.pid for c in psutil.Process(server.process.pid).children(recursive=True)}
        if status == 200 and len(now) == len(before) and now != before:
            break
        assert time.monotonic() < deadline
        time.sleep(0.1)
    killed = before - now
    assert len(killed) == 1 and not any(psutil.pid_exists(p) for p in killed)


# --- named queries, the page's data ---------------------------------------------------------
def test_named_queries_over_http(server: Server) -> None:
    status, _, body = fetch(
        server.base
        + "/queries/papers-using?"
        + urllib.parse.urlencode({"concept": "Diffusion Models"}),
        headers={"Accept": "application/sparql-results+json"},
    )
    assert status == 200
    papers = [b["paper"]["value"] for b in json.loads(body)["results"]["bindings"]]
    assert papers == [f"https://w3id.org/paperkg/resource/paper/{p}" for p in ("p4", "p3")]
    status, _, body = fetch(
        server.base
        + "/queries/papers-using?"
        + urllib.parse.urlencode({"concept": 'x" } UNION { ?paper ?p ?o } #'}),
        headers={"Accept": "text/csv"},
    )
    assert status == 200 and body == b"paper,title,year,linkRole,c,label\r\n"
    status, _, body = fetch(server.base + "/queries/papers-using")
    assert status == 400 and b"needs --param concept=VALUE" in body
    status, _, body = fetch(server.base + "/queries/nope")
    assert status == 404 and b"no named query 'nope'" in body
    status, _, body = fetch(server.base + "/queries")
    listing = json.loads(body)
    assert status == 200 and {q["name"] for q in listing} >= {"papers-using", "evidence"}


def _page(server: Server, url: str) -> tuple[list[str], str | None, dict[str, str]]:
    status, headers, body = fetch(
        server.base + url, headers={"Accept": "application/sparql-results+json"}
    )
    assert status == 200, body
    rows = [b["c"]["value"] for b in json.loads(body)["results"]["bindings"]]
    link = headers.get("Link")
    following = None
    if link is not None:
        assert link.startswith("<") and link.endswith('>; rel="next"')
        following = link[1:].removesuffix('>; rel="next"')
    return rows, following, headers


def test_named_query_answers_come_in_pages(server: Server) -> None:
    # The fixture server sends 3 rows a page (--page-rows 3) and at most 20 rows (--max-rows).
    whole, following, headers = _page(server, "/queries/search?text=e&limit=all")
    assert len(whole) == 20 and following is None and "X-Paperkg-Truncated" not in headers
    first, following, headers = _page(server, "/queries/search?text=e")
    assert first == whole[:3] and headers["X-Paperkg-Truncated"] == "true"
    assert following == "/queries/search?text=e&offset=3&limit=3"
    # Following the links gives the whole answer, in order, once; the last page has no link.
    pages = [first]
    while following is not None:
        rows, following, _ = _page(server, following)
        pages.append(rows)
    assert [row for page in pages for row in page] == whole
    assert [len(page) for page in pages] == [3] * 6 + [2]
    rows, following, _ = _page(server, "/queries/search?text=e&offset=18&limit=5")
    assert rows == whole[18:] and following is None
    rows, following, _ = _page(server, "/queries/search?text=e&offset=40")
    assert rows == [] and following is None
    # The row cap still holds (a page over it is cut, and says so), and so do the formats.
    rows, following, headers = _page(server, "/queries/top-concepts?limit=25")
    assert len(rows) == 20 and headers["X-Paperkg-Truncated"] == "true"
    assert following == "/queries/top-concepts?offset=20&limit=20"
    status, headers, body = fetch(server.base + "/queries/search?text=e&format=csv&offset=3")
    assert status == 200 and len(body.decode().splitlines()) == 1 + 3
    assert headers["Link"] == '</queries/search?text=e&format=csv&offset=6&limit=3>; rel="next"'
    for bad in ("offset=-1", "offset=x", "limit=0", "limit=1e3", "limit=%C2%B2"):
        status, _, body = fetch(server.base + "/queries/search?text=e&" + bad)
        assert status == 400 and b"give a" in body, bad


def test_unknown_pages_are_404(server: Server) -> None:
    status, _, body = fetch(server.base + "/nothing-here")
    assert status == 404 and b"no such page '/nothing-here'" in body


def test_the_graph_view_is_served(server: Server) -> None:
    status, headers, body = fetch(server.base + "/graph?view=concepts&max_nodes=30")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"<html" in body.lower()
    status, _, body = fetch(server.base + "/graph?max_nodes=many")
    assert status == 400 and b"max_nodes must be a whole number" in body


def test_serve_refuses_a_missing_graph(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(KG), "serve", str(tmp_path / "none.ttl"), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "none.ttl: no such graph file" in result.stderr


# --- the query page in a real browser ---------------------------------------------------------
def _only_local(page: object, server: Server, expected_errors: tuple[str, ...] = ()) -> None:
    """Every request went to the server, and the console shows no error but those expected."""
    requests = page.requests  # type: ignore[attr-defined]
    assert requests and all(url.startswith(server.base) for url in requests), requests
    assert page.console_errors == list(expected_errors)  # type: ignore[attr-defined]


@pytest.mark.browser
def test_page_runs_a_named_query_and_links_iris(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.base + "/")
    assert page.title() == "paperkg SPARQL"
    page.select_option("#examples", "papers-using")
    assert page.input_value("input[data-param=concept]") == "diffusion model"
    page.fill("input[data-param=concept]", "Diffusion Models")
    page.click("#run")
    page.wait_for_selector("#results table tbody tr")
    assert page.locator("#status").inner_text().startswith("2 results in ")
    headers = page.locator("#results th").all_inner_texts()
    assert headers == ["paper", "title", "year", "linkRole", "c", "label"]
    first = page.locator("#results tbody tr").first.locator("td")
    assert first.nth(1).inner_text() == "Scaling Diffusion Transformers"
    link = first.nth(0).locator("a")
    assert link.inner_text() == "paper/p4"
    assert link.get_attribute("href") == (
        "/?name=resource&iri=https%3A%2F%2Fw3id.org%2Fpaperkg%2Fresource%2Fpaper%2Fp4"
    )
    downloads = page.locator("#downloads a")
    assert downloads.all_inner_texts() == ["JSON", "XML", "CSV", "TSV"]
    csv_href = downloads.nth(2).get_attribute("href")
    assert csv_href == "/queries/papers-using?concept=Diffusion+Models&format=csv&limit=all"
    status, headers_csv, body = fetch(server.base + csv_href)
    assert status == 200 and headers_csv["Content-Type"].startswith("text/csv")
    assert body.count(b"\r\n") == 3
    link.click()
    page.wait_for_url("**/?name=resource&iri=*")
    page.wait_for_selector("#results table tbody tr")
    assert page.input_value("input[data-param=iri]") == "https://w3id.org/paperkg/resource/paper/p4"
    properties = page.locator("#results tbody tr td:first-child").all_inner_texts()
    assert "dcterms:title" in properties and "schema:keywords" in properties
    assert "cut at the server's cap of 20" in page.locator("#status").inner_text()
    _only_local(page, server)


@pytest.mark.browser
def test_page_runs_a_typed_query_and_shows_errors(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.base + "/")
    page.fill("#query", "SELECT ?n WHERE { BIND(40 + 2 AS ?n) }")
    page.click("#run")
    page.wait_for_selector("#results td.num")
    assert page.locator("#results td.num").inner_text() == "42"
    page.fill("#query", "SELECT * WHERE {\n ?s ?p }")
    page.click("#run")
    page.wait_for_selector("#status.error")
    assert (
        page.locator("#status").inner_text().startswith("Error 400: SPARQL syntax error at line 2")
    )
    page.select_option("#examples", "concept-graph")
    page.click("#run")
    page.wait_for_selector("pre.graph")
    assert "@prefix kg:" in page.locator("pre.graph").inner_text()
    assert page.locator("#downloads a").all_inner_texts() == ["TURTLE", "NTRIPLES"]
    page.goto(server.base + "/?query=" + urllib.parse.quote("ASK { ?s ?p 'LQCA' }"))
    page.wait_for_selector("#results p")
    assert page.locator("#results p").inner_text() == "ASK: true"
    # The browser logs the syntax error's HTTP 400 itself.
    _only_local(
        page,
        server,
        ("Failed to load resource: the server responded with a status of 400 (Bad Request)",),
    )


@pytest.mark.browser
def test_graph_view_draws_offline_under_the_page_policy(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.base + "/graph?query=papers-using&concept=LLM")
    page.wait_for_selector("canvas", timeout=60_000)
    assert "LQCA" in page.content() or "Attention" in page.content()
    _only_local(page, server)
