"""The Oxigraph store: bulk loads that replace or add, and leave the store intact on failure."""

from __future__ import annotations

import fcntl
import gzip
import shutil
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.errors import InputError, StoreError
from kg.query import open_source
from kg.query.labels import INDEX_GRAPH, LABEL_KEY, candidates
from kg.query.store import load_store
from kg.rdf.io import is_store, open_read_only

FIXTURE = Path(__file__).parent / "fixtures" / "query_graph.ttl"
EX = "http://example.org/"


def _triples(*names: str) -> list[ox.Triple]:
    return [ox.Triple(ox.NamedNode(EX + n), ox.NamedNode(EX + "p"), ox.Literal(n)) for n in names]


def _subjects(store_dir: Path) -> list[str]:
    store = open_read_only(store_dir)
    return sorted(q.subject.value.removeprefix(EX) for q in store if q.graph_name != INDEX_GRAPH)


def _leftovers(store_dir: Path) -> list[str]:
    return sorted(p.name for p in store_dir.parent.glob(f".{store_dir.name}.loading-*"))


def test_load_a_graph_file(tmp_path: Path) -> None:
    store_dir = tmp_path / "graph.db"
    report = load_store(store_dir, FIXTURE)
    reference = ox.Store()
    reference.load(path=str(FIXTURE), format=ox.RdfFormat.TURTLE)
    assert report.triples == len(reference) > 1000
    assert report.replaced and report.size_bytes > 0 and report.seconds >= 0
    assert is_store(store_dir)
    assert f"{report.triples:,} triples" in report.summary()
    stored = open_read_only(store_dir)
    assert {q for q in stored if q.graph_name != INDEX_GRAPH} == set(reference)


def test_replace_and_append(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("a", "b"))
    load_store(store_dir, _triples("c"))
    assert _subjects(store_dir) == ["c"]
    report = load_store(store_dir, _triples("d"), replace=False)
    assert _subjects(store_dir) == ["c", "d"] and report.triples == 2 and not report.replaced
    assert _leftovers(store_dir) == []


def test_a_bad_file_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("a", "b"))
    bad = tmp_path / "bad.ttl"
    lines = [f"<{EX}x{i}> <{EX}p> {i} ." for i in range(5000)]
    bad.write_text("\n".join(lines) + "\n<broken\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.ttl.*not valid RDF \(ttl\), nothing loaded"):
        load_store(store_dir, bad)
    with pytest.raises(InputError, match="not valid RDF"):
        load_store(store_dir, bad, replace=False)
    assert _subjects(store_dir) == ["a", "b"]
    assert _leftovers(store_dir) == []


def test_a_failing_triple_source_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("a"))

    def broken() -> Iterator[ox.Triple]:
        yield from _triples(*(f"n{i}" for i in range(1000)))
        raise RuntimeError("extraction crashed")

    with pytest.raises(RuntimeError, match="extraction crashed"):
        load_store(store_dir, broken())
    assert _subjects(store_dir) == ["a"]
    assert _leftovers(store_dir) == []


def test_rdflib_triples_and_quads_load_too(tmp_path: Path) -> None:
    from rdflib import Literal, URIRef

    store_dir = tmp_path / "s"
    load_store(store_dir, [(URIRef(EX + "r"), URIRef(EX + "p"), Literal("r"))])
    load_store(
        store_dir,
        [ox.Quad(ox.NamedNode(EX + "q"), ox.NamedNode(EX + "p"), ox.Literal("q"))],
        replace=False,
    )
    assert _subjects(store_dir) == ["q", "r"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inside rdflib's TriX writer
def test_gzipped_files_and_formats_only_rdflib_reads(tmp_path: Path) -> None:
    import rdflib

    gz = tmp_path / "graph.nt.gz"
    gz.write_bytes(gzip.compress(f'<{EX}g> <{EX}p> "g" .\n'.encode()))
    graph = rdflib.Dataset()
    graph.add((rdflib.URIRef(EX + "t"), rdflib.URIRef(EX + "p"), rdflib.Literal("t")))
    trix = tmp_path / "graph.trix"
    graph.serialize(trix, format="trix")
    load_store(tmp_path / "s", gz)
    load_store(tmp_path / "s", trix, replace=False)
    assert _subjects(tmp_path / "s") == ["g", "t"]


def test_an_open_reader_keeps_its_snapshot(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("old"))
    reader = open_read_only(store_dir)
    load_store(store_dir, _triples("new"))
    assert [q.subject.value for q in reader] == [EX + "old"]
    assert _subjects(store_dir) == ["new"]


def test_refuses_to_replace_a_folder_that_is_not_a_store(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not an Oxigraph store; refusing"):
        load_store(folder, _triples("a"))
    assert (folder / "notes.txt").read_text() == "keep me"


def test_opening_a_missing_store_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"kg load GRAPH --store"):
        open_read_only(tmp_path / "nothing")


def test_a_swap_cut_short_is_undone(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("kept"))
    work = tmp_path / ".s.loading-dead"
    work.mkdir()
    shutil.move(store_dir, work / "old")  # the state between the swap's two renames
    assert _subjects(store_dir) == ["kept"]
    load_store(store_dir, _triples("next"), replace=False)
    assert _subjects(store_dir) == ["kept", "next"]
    assert _leftovers(store_dir) == []


def test_one_load_at_a_time(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _triples("a"))
    with (tmp_path / ".s.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(StoreError, match="another load is running"):
            load_store(store_dir, _triples("b"))
    assert _subjects(store_dir) == ["a"]


SKOS = "http://www.w3.org/2004/02/skos/core#"


def _labelled(*pairs: tuple[str, str]) -> list[ox.Triple]:
    return [
        ox.Triple(ox.NamedNode(EX + c), ox.NamedNode(SKOS + "altLabel"), ox.Literal(label))
        for c, label in pairs
    ]


def test_every_load_keeps_the_label_index_up_to_date(tmp_path: Path) -> None:
    store_dir = tmp_path / "s"
    load_store(store_dir, _labelled(("a", "LoRA"), ("b", "Straße")))
    store = open_read_only(store_dir)
    assert candidates(store, "lora") == [ox.NamedNode(EX + "a")]
    assert candidates(store, "STRASSE") == [ox.NamedNode(EX + "b")]  # case folding, not lower
    load_store(store_dir, _labelled(("c", "LoRA")), replace=False)
    assert candidates(open_read_only(store_dir), "LORA") == [
        ox.NamedNode(EX + "a"),
        ox.NamedNode(EX + "c"),
    ]
    load_store(store_dir, _labelled(("d", "QLoRA")))
    store = open_read_only(store_dir)
    assert candidates(store, "lora") == [] and candidates(store, "qlora") == [
        ox.NamedNode(EX + "d")
    ]
    keys = list(store.quads_for_pattern(None, LABEL_KEY, None, INDEX_GRAPH))
    assert len(keys) == 1


def test_queries_do_not_see_the_index(tmp_path: Path) -> None:
    load_store(tmp_path / "s", _labelled(("a", "LoRA")))
    with open_source(store=tmp_path / "s") as source:
        rows = source.select("SELECT ?s ?p ?o WHERE { ?s ?p ?o }")
        assert [row["p"].value for row in rows] == [SKOS + "altLabel"]


def test_a_store_without_the_index_gives_the_same_answers(tmp_path: Path) -> None:
    """A store filled by another tool (here `oxigraph load`) has no index: queries scan."""
    import subprocess
    import sys

    from kg.query import run_named
    from kg.query.formats import compact

    bare = tmp_path / "bare.db"
    oxigraph = Path(sys.executable).with_name("oxigraph")
    subprocess.run(
        [str(oxigraph), "load", "--location", str(bare), "--file", str(FIXTURE)],
        check=True,
        capture_output=True,
    )
    indexed = tmp_path / "indexed.db"
    load_store(indexed, FIXTURE)
    answers = []
    for store_dir in (bare, indexed):
        with open_source(store=store_dir) as source:
            assert source.indexed is (store_dir == indexed)
            result = run_named(source, "papers-using", {"concept": "llms"})
            answers.append([[compact(t) for t in row] for row in result.rows])
    assert answers[0] == answers[1] and len(answers[0]) == 4
