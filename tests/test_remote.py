"""A remote SPARQL 1.1 server: a real `oxigraph serve` on a free local port, started and stopped
by the tests. Push with the Graph Store Protocol and with SPARQL Update, query via the Protocol:
every named query gives the same rows as it does locally."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.errors import QueryError, StoreError
from kg.query import run_named
from kg.query.formats import compact
from kg.query.remote import EndpointSource, Protocol, push_graph

pytestmark = pytest.mark.server

FIXTURES = Path(__file__).parent / "fixtures"
GRAPH = FIXTURES / "query_graph.ttl"
EXPECTED = json.loads((FIXTURES / "query_expected.json").read_text(encoding="utf-8"))
OXIGRAPH = Path(sys.executable).with_name("oxigraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """Poll `url` until it answers (or the process dies, or time runs out)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


@pytest.fixture(scope="module")
def oxigraph_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a fresh `oxigraph serve` with its own store folder."""
    binary = OXIGRAPH if OXIGRAPH.exists() else shutil.which("oxigraph")
    assert binary, "the oxigraph server (PyPI package oxigraph) is not installed"
    port = free_port()
    location = tmp_path_factory.mktemp("oxigraph")
    process = subprocess.Popen(
        [str(binary), "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(f"{base}/query?query=ASK%7B%7D", process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def loaded(oxigraph_server: str) -> EndpointSource:
    report = push_graph(f"{oxigraph_server}/store", GRAPH)
    assert report.triples > 1000 and report.protocol is Protocol.GSP
    return EndpointSource(f"{oxigraph_server}/query")


CASES = [(name, case) for name, cases in EXPECTED.items() for case in cases]


@pytest.mark.parametrize(
    ("name", "case"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_named_queries_over_the_protocol(loaded: EndpointSource, name: str, case: dict) -> None:
    result = run_named(loaded, name, case["params"])
    if "ntriples" in case:
        assert sorted(f"{t} ." for t in result.triples) == case["ntriples"]
    else:
        assert list(result.variables) == case["columns"]
        assert [[compact(t) for t in row] for row in result.rows] == case["rows"]


@pytest.mark.parametrize("value", ['x" } UNION { ?paper ?p ?o } #', "} UNION {", "'''x'''"])
def test_hostile_values_stay_values_over_the_protocol(loaded: EndpointSource, value: str) -> None:
    assert run_named(loaded, "papers-using", {"concept": value}).rows == []


def _count(source: EndpointSource, graph: str) -> int:
    rows = source.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")
    return int(rows[0]["n"].value)


@pytest.mark.parametrize("protocol", ["gsp", "update"])
def test_push_replaces_or_adds_to_a_named_graph(
    oxigraph_server: str, tmp_path: Path, protocol: str
) -> None:
    source = EndpointSource(f"{oxigraph_server}/query")
    url = f"{oxigraph_server}/{'store' if protocol == 'gsp' else 'update'}"
    graph = f"https://example.org/graphs/{protocol}"
    one, two = tmp_path / "one.nt", tmp_path / "two.nt"
    one.write_text('<http://e/a> <http://e/p> "1" .\n<http://e/b> <http://e/p> "2" .\n')
    two.write_text('<http://e/c> <http://e/p> "3" .\n')
    assert push_graph(url, one, graph=graph, protocol=protocol).triples == 2
    assert _count(source, graph) == 2
    push_graph(url, two, graph=graph, protocol=protocol)
    assert _count(source, graph) == 1
    push_graph(url, one, graph=graph, protocol=protocol, replace=False)
    assert _count(source, graph) == 3


def test_a_bad_file_sends_nothing(oxigraph_server: str, tmp_path: Path) -> None:
    from kg.errors import InputError

    source = EndpointSource(f"{oxigraph_server}/query")
    graph = "https://example.org/graphs/bad"
    good = tmp_path / "good.nt"
    good.write_text('<http://e/a> <http://e/p> "1" .\n')
    push_graph(f"{oxigraph_server}/store", good, graph=graph)
    bad = tmp_path / "bad.ttl"
    bad.write_text('<http://e/x> <http://e/p> "2" .\n<http://e/y> <http://e/p> .\n')
    with pytest.raises(InputError, match="nothing sent"):
        push_graph(f"{oxigraph_server}/store", bad, graph=graph)
    assert _count(source, graph) == 1


def test_server_errors_are_reported(oxigraph_server: str) -> None:
    with pytest.raises(QueryError, match="rejected the query"):
        EndpointSource(f"{oxigraph_server}/query").query("SELECT * WHERE { ?s ?p }")
    with pytest.raises(StoreError, match="cannot reach the SPARQL endpoint"):
        EndpointSource(f"http://127.0.0.1:{free_port()}/query", timeout=2).query("ASK {}")


def test_cli_load_and_query_an_endpoint(oxigraph_server: str, loaded: EndpointSource) -> None:
    runner = CliRunner()
    graph = "https://example.org/graphs/cli"
    result = runner.invoke(
        main,
        [
            "load",
            str(GRAPH),
            "--endpoint",
            f"{oxigraph_server}/update",
            "--protocol",
            "update",
            "--graph",
            graph,
        ],
        prog_name="kg",
    )
    assert result.exit_code == 0, result.output
    assert f"to graph <{graph}> (update)" in result.stdout
    result = runner.invoke(
        main,
        [
            "query",
            "--endpoint",
            f"{oxigraph_server}/query",
            "acronyms",
            "-p",
            "acronym=LQCA",
            "--format",
            "csv",
        ],
        prog_name="kg",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("LQCA,Long Question Coreference Adaptation,")
    result = runner.invoke(
        main,
        ["query", "--endpoint", f"{oxigraph_server}/query", "SELECT * { ?s ?p }"],
        prog_name="kg",
    )
    assert result.exit_code == 2 and "rejected the query" in result.stderr
