"""kg.rdf.io, the one way to tell a graph file's format and open a file or a store: every
reader (queries, the store, stats, the browser view) gets the same formats and errors."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.errors import InputError
from kg.query import open_source
from kg.query.store import load_store
from kg.rdf import GraphFormat, build_triples, write_graph
from kg.rdf.io import file_format, open_graph, parse_file, sniff_format
from kg.rdf.sample import sample_corpus
from kg.rdf.stats import graph_stats
from viz.load import open_store

EX = "http://example.org/"
TURTLE = f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\n"


@pytest.mark.parametrize(
    ("name", "expected", "gzipped"),
    [("g.ttl", "ttl", False), ("G.NT.gz", "nt", True), ("g.owl", "rdf", False),
     ("g.json", "jsonld", False), ("g.trix", "trix", False)],
)  # fmt: skip
def test_the_format_comes_from_the_name(name: str, expected: str, gzipped: bool) -> None:
    fmt = file_format(name)
    assert (fmt.name, fmt.gzipped) == (expected, gzipped)


@pytest.mark.parametrize(
    ("head", "expected"),
    [(b"# a comment\n\nPREFIX ex: <http://e/>\n", "ttl"), (b"<http://e/a> <http://e/p> 1 .", "ttl"),
     (b'\xef\xbb\xbf{"@context": {}}', "jsonld"), (b"<?xml version='1.0'?><rdf:RDF/>", "rdf"),
     (b"id,title\n1,x\n", None)],
)  # fmt: skip
def test_else_from_the_first_bytes(head: bytes, expected: str | None) -> None:
    found = sniff_format(head)
    assert (found.name if found else None) == expected


def test_a_file_without_an_rdf_suffix_is_read_by_its_content(tmp_path: Path) -> None:
    path = tmp_path / "graph.data.gz"
    path.write_bytes(gzip.compress(TURTLE.encode()))
    assert len(open_graph(path)) == 1
    assert [q.subject.value for q in parse_file(path)] == [EX + "a"]
    csv = tmp_path / "papers.csv"
    csv.write_text("id,title\n1,x\n")
    with pytest.raises(InputError, match=r"papers\.csv: unknown RDF format"):
        open_graph(csv)


def test_every_reader_gives_the_same_error_for_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .\n")
    readers = [open_graph, open_store, graph_stats, lambda p: load_store(tmp_path / "s", p),
               lambda p: open_source(p, engine="oxigraph"), lambda p: open_source(p)]  # fmt: skip
    for read in readers:
        with pytest.raises(InputError, match=r"bad\.ttl: not valid RDF \(ttl\)"):
            read(bad)


def test_the_browser_view_opens_a_store_through_its_recovery_path(tmp_path: Path) -> None:
    """A load cut short between its two renames leaves the store in the work folder: readers
    put it back before opening it, the view as well as queries."""
    store_dir = tmp_path / "s"
    load_store(store_dir, [ox.Triple(ox.NamedNode(EX + "a"), ox.NamedNode(EX + "p"),
                                     ox.Literal("kept"))])  # fmt: skip
    work = tmp_path / ".s.loading-dead"
    work.mkdir()
    shutil.move(store_dir, work / "old")
    store = open_store(store_dir)
    assert store.query("ASK { ?s ?p 'kept' }")
    assert store_dir.is_dir()


@pytest.mark.parametrize("fmt", list(GraphFormat))
def test_what_the_build_writes_is_read_back_by_its_name(fmt: GraphFormat, tmp_path: Path) -> None:
    """Every format `kg build` writes, gzipped or not, reads back as the same triples."""
    triples = build_triples(sample_corpus(), include_ontology=False)
    for name in (f"graph{fmt.extension}", f"graph{fmt.extension}.gz"):
        path = tmp_path / name
        write_graph(triples, path, fmt)
        assert file_format(path).oxigraph == fmt.rdf_format
        assert set(q.triple for q in open_graph(path)) == set(triples)
