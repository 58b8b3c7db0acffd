"""Streaming the graph to disk (`kg.rdf.build.iter_triples`, lazy blocks) and the sharded
N-Triples output of `kg build --shards` (`kg.rdf.shards`)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from pyoxigraph import Literal, NamedNode, Triple

from kg.build import run_build, shards_folder
from kg.rdf.canonical import TripleBuffer
from kg.rdf.shards import ShardWriter, shard_name, shard_of

from .conftest import EXAMPLE

P = NamedNode("https://example.org/p")


def test_a_lazy_block_is_made_only_when_iterated() -> None:
    made: list[str] = []

    def make(subject: str, value: str) -> list[Triple]:
        made.append(subject)
        return [Triple(NamedNode(subject), P, Literal(value))]

    buf = TripleBuffer()
    buf.add_lazy_block("https://example.org/b", make, "https://example.org/b", "2")
    buf.add("https://example.org/a", P, Literal("1"), "1")
    assert made == []
    stream = buf.iter_triples()
    assert str(next(stream).subject) == "<https://example.org/a>"
    assert made == []
    assert [str(t.object) for t in stream] == ['"2"']
    assert made == ["https://example.org/b"]
    with pytest.raises(ValueError, match="has triples already"):
        buf.add_lazy_block("https://example.org/a", make, "x", "y")


def test_lazy_ranges_are_made_one_at_a_time_in_subject_order() -> None:
    made: list[str] = []

    def make(prefix: str, *names: str) -> list[tuple[str, list[Triple]]]:
        made.append(prefix)
        return [(prefix + n, [Triple(NamedNode(prefix + n), P, Literal(n))]) for n in names]

    base = "https://example.org/paper/"
    buf = TripleBuffer()
    # "a-2" sorts between "a" and "a/...": the ranges interleave with the buffer's subjects.
    buf.add_lazy_range(base + "a/", make, base + "a/", "z", "b")
    buf.add_lazy_range(base + "a-2/", make, base + "a-2/", "x")
    buf.add(base + "a", P, Literal("paper"), "paper")
    buf.add(base + "a-2", P, Literal("paper"), "paper")
    buf.add(base + "b", P, Literal("paper"), "paper")
    buf.add(base + "a/z", P, Literal("z"), "z")  # also in a range: the buffer's block wins
    assert made == []
    stream = buf.iter_triples()
    assert next(stream).subject.value == base + "a"  # type: ignore[union-attr]
    assert made == []  # a range is made when the writer reaches it, not before
    assert next(stream).subject.value == base + "a-2"  # type: ignore[union-attr]
    assert made == []
    rest = [t.subject.value for t in stream]  # type: ignore[union-attr]
    assert rest == [base + s for s in ("a-2/x", "a/b", "a/z", "b")]
    assert made == [base + "a-2/", base + "a/"]


def test_a_lazy_range_refuses_a_subject_outside_its_prefix() -> None:
    buf = TripleBuffer()
    buf.add_lazy_range("https://example.org/a/", lambda: [("https://example.org/b", [])])
    with pytest.raises(ValueError, match="outside its range"):
        list(buf.iter_triples())


def _triples(path: Path, fmt: ox.RdfFormat) -> set[ox.Triple]:
    return {q.triple for q in ox.parse(path=str(path), format=fmt)}  # type: ignore[union-attr]


@pytest.mark.model
def test_shards_hold_the_graph_and_the_analytics(tmp_path: Path) -> None:
    graph = tmp_path / "graph.ttl"
    summary = run_build([EXAMPLE], graph, n_process=1, shards=3, analyze=True)
    folder = shards_folder(graph)
    assert folder == tmp_path / "graph.shards"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["analytics.nt", *(shard_name(i, 3) for i in range(3))]
    whole = _triples(graph, ox.RdfFormat.TURTLE)
    parts = [_triples(folder / name, ox.RdfFormat.N_TRIPLES) for name in names]
    assert set().union(*parts) == whole and sum(map(len, parts)) == len(whole)
    assert len(whole) == summary.triples
    for i, part in enumerate(parts[1:]):  # every subject in the shard its IRI names
        assert {shard_of(t.subject.value, 3) for t in part} == {i}  # type: ignore[union-attr]
    plain = tmp_path / "plain.ttl"
    run_build([EXAMPLE], plain, n_process=1, analyze=True)
    assert plain.read_bytes() == graph.read_bytes()


def test_a_failed_write_keeps_the_old_shards(tmp_path: Path) -> None:
    folder = tmp_path / "g.shards"
    triple = Triple(NamedNode("https://example.org/s"), P, Literal("a \"quoted\"\nline"))
    with ShardWriter(folder, 2) as writer:
        writer.add(triple)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert b"".join(before.values()) == (
        b'<https://example.org/s> <https://example.org/p> "a \\"quoted\\"\\nline" .\n')
    with pytest.raises(RuntimeError), ShardWriter(folder, 2) as writer:
        writer.add(Triple(NamedNode("https://example.org/t"), P, Literal("b")))
        raise RuntimeError("disk full")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.shards"]  # no leftovers
    with ShardWriter(folder, 1) as writer:
        writer.add(triple)
    assert sorted(p.name for p in folder.iterdir()) == [shard_name(0, 1)]
    assert _triples(folder / shard_name(0, 1), ox.RdfFormat.N_TRIPLES) == {triple}
