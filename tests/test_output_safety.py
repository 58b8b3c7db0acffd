"""Issue 13.8 and 13.12: every output is well-formed whatever text a graph holds, and a query an
engine cannot evaluate is a clear error (exit 2 / 400), not a traceback (500).

A graph built by `kg build` holds no control characters or noncharacters (ingest drops them:
tests/test_ingest_fuzz.py); a graph made elsewhere may, so the writers make them safe too.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib
from click.testing import CliRunner

from kg.cli import main

# Characters XML cannot hold (BEL, ESC, NUL, U+FFFE, U+FFFF, U+1FFFE), the noncharacter U+FDD0,
# a C1 control (U+0085) and a bidirectional override a terminal would act on.
NASTY = "bell\x07 esc\x1b[31m red nul\x00 \ufffe\uffff\ufdd0\U0001fffe nel\x85 \u202eflip"
PAPER = "https://w3id.org/paperkg/resource/paper/nasty"
TITLE = "http://purl.org/dc/terms/title"
SELECT = f"SELECT ?title WHERE {{ <{PAPER}> <{TITLE}> ?title }}"
CONSTRUCT = f"CONSTRUCT {{ <{PAPER}> <{TITLE}> ?t }} WHERE {{ <{PAPER}> <{TITLE}> ?t }}"
UNSUPPORTED = "SELECT ?s WHERE { ?s ?p ?o FILTER(<http://example.org/fn>(?o)) }"


@pytest.fixture(scope="module")
def nasty_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Turtle file (written by pyoxigraph, which escapes what Turtle needs) holding NASTY as
    a plain and a language-tagged title."""
    path = tmp_path_factory.mktemp("nasty") / "nasty.ttl"
    triples = [
        ox.Triple(ox.NamedNode(PAPER), ox.NamedNode(TITLE), ox.Literal(NASTY)),
        ox.Triple(ox.NamedNode(PAPER), ox.NamedNode(TITLE), ox.Literal(NASTY, language="en")),
    ]
    path.write_bytes(ox.serialize(triples, format=ox.RdfFormat.TURTLE) or b"")
    return path


def run(*args: str | Path) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], prog_name="kg")
    return result.exit_code, result.stdout_bytes, result.stderr


def _titles_in_xml_results(data: bytes) -> list[str]:
    """The literals of a SPARQL XML result, read by expat (raises on ill-formed XML)."""
    root = ET.fromstring(data)
    ns = "{http://www.w3.org/2005/sparql-results#}"
    return sorted(el.text or "" for el in root.iter(ns + "literal"))


def _titles_in_rdfxml(data: bytes) -> list[str]:
    ET.fromstring(data)  # well-formed XML
    graph = rdflib.Graph().parse(io.BytesIO(data), format="xml")
    return sorted(str(o) for o in graph.objects())


SAFE = "bell\ufffd esc\ufffd[31m red nul\ufffd \ufffd\ufffd\ufffd\ufffd nel\x85 \u202eflip"


@pytest.mark.parametrize("engine", ["rdflib", "oxigraph"])
def test_sparql_xml_results_are_well_formed(nasty_graph: Path, engine: str) -> None:
    code, out, err = run("query", nasty_graph, SELECT, "--engine", engine, "--format", "xml")
    assert code == 0, err
    assert _titles_in_xml_results(out) == [SAFE, SAFE]


@pytest.mark.parametrize("engine", ["rdflib", "oxigraph"])
def test_rdfxml_is_well_formed(nasty_graph: Path, engine: str) -> None:
    code, out, err = run("query", nasty_graph, CONSTRUCT, "--engine", engine, "--format", "rdfxml")
    assert code == 0, err
    assert _titles_in_rdfxml(out) == [SAFE, SAFE]


def test_the_other_formats_keep_the_text_exactly(nasty_graph: Path) -> None:
    import json

    code, out, _ = run("query", nasty_graph, SELECT, "--format", "json")
    assert code == 0
    values = [b["title"]["value"] for b in json.loads(out)["results"]["bindings"]]
    assert values == [NASTY, NASTY]  # JSON escapes what it must: nothing is replaced
    code, out, _ = run("query", nasty_graph, CONSTRUCT, "--format", "ntriples")
    assert code == 0
    assert {str(t.object.value) for t in ox.parse(out, format=ox.RdfFormat.N_TRIPLES)} == {NASTY}


def test_the_table_shows_control_characters_instead_of_sending_them(nasty_graph: Path) -> None:
    code, out, _ = run("query", nasty_graph, SELECT, "--max-width", "200")
    assert code == 0
    text = out.decode("utf-8")
    assert not any(c in text for c in "\x07\x1b\x00\x85\u202e")
    assert r"bell\x07 esc\x1b[31m red nul\x00" in text
    assert r"\u202eflip" in text


@pytest.mark.server
def test_the_endpoint_writes_well_formed_xml(
    nasty_graph: Path, kg_server: Callable[..., Any], http_request: Any
) -> None:
    import urllib.parse

    for args in ([str(nasty_graph)], [str(nasty_graph), "--engine", "oxigraph"]):
        server = kg_server(*args)
        for query, accept, read in (
            (SELECT, "application/sparql-results+xml", _titles_in_xml_results),
            (CONSTRUCT, "application/rdf+xml", _titles_in_rdfxml),
        ):
            url = server.sparql + "?" + urllib.parse.urlencode({"query": query})
            status, headers, body = http_request(url, headers={"Accept": accept})
            assert status == 200, body
            assert headers["Content-Type"].startswith(accept)
            assert read(body) == [SAFE, SAFE]


# --- 13.12: a function the engine does not have ----------------------------------------------


@pytest.mark.parametrize("engine", ["oxigraph", "oxigraph-store"])
def test_an_unsupported_function_is_a_clear_error(
    nasty_graph: Path, engine: str, tmp_path: Path
) -> None:
    if engine == "oxigraph-store":
        assert run("load", nasty_graph, "--store", tmp_path / "g.db")[0] == 0
        args: list[str | Path] = ["--store", tmp_path / "g.db"]
    else:
        args = [nasty_graph, "--engine", "oxigraph"]
    code, out, err = run("query", *args, UNSUPPORTED)
    assert code == 2, err
    assert err == (
        "kg query: error: SPARQL error: Oxigraph cannot evaluate this query: "
        "The custom function <http://example.org/fn> is not supported\n"
    )
    assert "Traceback" not in err and out == b""


@pytest.mark.server
def test_the_endpoint_answers_400_to_an_unsupported_function(
    nasty_graph: Path, kg_server: Callable[..., Any], http_request: Any
) -> None:
    import urllib.parse

    server = kg_server(str(nasty_graph), "--engine", "oxigraph")
    url = server.sparql + "?" + urllib.parse.urlencode({"query": UNSUPPORTED})
    status, _, body = http_request(url)
    assert status == 400
    assert b"The custom function <http://example.org/fn> is not supported" in body
