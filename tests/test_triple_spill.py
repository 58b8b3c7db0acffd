"""A `TripleBuffer` that spills sorted runs to disk writes exactly what one in memory writes."""

from __future__ import annotations

import gc
import random

import pytest
from pyoxigraph import Literal, NamedNode, Triple

from kg.rdf import build as rdf_build
from kg.rdf import canonical
from kg.rdf.build import build_triples
from kg.rdf.canonical import Region, TripleBuffer
from kg.rdf.sample import sample_corpus
from kg.rdf.terms import RDF_TYPE, XSD_INTEGER, iri_term, str_term

B = "https://example.org/"
PREDICATES = [RDF_TYPE, NamedNode(B + "label"), NamedNode(B + "count"), NamedNode(B + "see")]


def _entries(seed: int, n: int) -> list[tuple[str, NamedNode, object, str]]:
    """Random additions: few subjects (so most get entries in several runs), repeated and
    equal-keyed objects, every kind of term the builder adds."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        subject = B + rng.choice("abcdefgh") + rng.choice(["", "-2", "/x", "/y"])
        predicate = rng.choice(PREDICATES)
        kind = rng.randrange(5)
        value = rng.choice(["1", "2", "10", "x", "y", "Ä", B + "o"])
        if kind == 0:
            obj, key = str_term(value)
        elif kind == 1:
            obj, key = iri_term(B + value)
        elif kind == 2:
            obj, key = Literal(value, datatype=XSD_INTEGER), value
        elif kind == 3:
            obj, key = Literal(value, language="en"), value
        else:
            obj, key = NamedNode(B + "C" + value), B + "C" + value
        out.append((subject, predicate, obj, key))
    return out


def _written(entries: list[tuple[str, NamedNode, object, str]], spill_at: int) -> list[str]:
    buf = TripleBuffer(spill_at=spill_at)

    def make(prefix: str, *names: str) -> list[tuple[str, list[Triple]]]:
        return [(prefix + n, [Triple(NamedNode(prefix + n), PREDICATES[1], Literal(n))])
                for n in names]

    buf.add_lazy_range(B + "a/", make, B + "a/", "z", "x")  # "a/x" also added below
    for subject, predicate, obj, key in entries:
        buf.add(subject, predicate, obj, key)  # type: ignore[arg-type]
    return [str(t) for t in buf.iter_triples()]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("spill_at", [1, 3, 17, 200])
def test_spilled_runs_give_the_same_triples_in_the_same_order(seed: int, spill_at: int) -> None:
    entries = _entries(seed, 400)
    assert _written(entries, spill_at) == _written(entries, 0)


@pytest.mark.parametrize("batch", [1, 3, 64])
def test_runs_of_many_subjects_read_back_whole_however_they_are_batched(
    monkeypatch: pytest.MonkeyPatch, batch: int,
) -> None:
    """A run is pickled `RUN_BATCH` subjects at a time: runs of hundreds of subjects (several
    batches, the last one short) give what the buffer in memory gives."""
    rng = random.Random(batch)
    entries = []
    for _ in range(1500):
        subject = f"{B}s{rng.randrange(700):04d}"
        obj, key = str_term(str(rng.randrange(5)))
        entries.append((subject, rng.choice(PREDICATES), obj, key))
    monkeypatch.setattr(canonical, "RUN_BATCH", batch)
    buf = TripleBuffer(spill_at=400)
    for subject, predicate, obj, key in entries:
        buf.add(subject, predicate, obj, key)  # type: ignore[arg-type]
    assert buf.spilled_runs == 3
    assert entries[0][0] in buf and f"{B}x" not in buf  # the first one is in the first run
    memory = TripleBuffer()
    for subject, predicate, obj, key in entries:
        memory.add(subject, predicate, obj, key)  # type: ignore[arg-type]
    assert [str(t) for t in buf.iter_triples()] == [str(t) for t in memory.iter_triples()]


def test_a_buffer_spills_past_its_budget_and_still_knows_its_subjects() -> None:
    buf = TripleBuffer(spill_at=2)
    for name in "abc":
        buf.add(B + name, PREDICATES[1], Literal(name), name)
    assert buf.spilled_runs == 1
    assert B + "a" in buf and B + "c" in buf and B + "d" not in buf
    with pytest.raises(ValueError, match="has triples already"):
        buf.add_block(B + "a", [])  # spilled, not in memory: still refused
    buf.add(B + "a", PREDICATES[1], Literal("a"), "a")  # the same triple again: written once
    assert [str(t.object) for t in buf.iter_triples()] == ['"a"', '"b"', '"c"']


def test_a_corpus_graph_is_the_same_with_any_spill_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole = [str(t) for t in build_triples(sample_corpus())]
    for budget in (1, 10, 250):
        monkeypatch.setattr(rdf_build, "SPILL_ENTRIES", budget)
        assert [str(t) for t in build_triples(sample_corpus())] == whole


@pytest.mark.parametrize("segments", [True, False])
def test_a_graph_made_leaves_no_cycle_that_holds_the_corpus(segments: bool) -> None:
    """Once the triples are taken, the buffer is closed (`TripleBuffer.close`): its lazy ranges'
    makers, methods of the graph builder that holds the buffer, no longer keep the builder and
    the corpus alive until the cyclic collector runs (issue 14: a build's whole corpus was
    collected that way before its store load)."""
    gc.collect()
    gc.disable()
    try:
        corpus = sample_corpus()
        if segments:
            for segment in rdf_build.iter_segments(corpus):
                list(segment.triples() if isinstance(segment, Region) else segment)
            del segment
        else:
            list(rdf_build.iter_triples(corpus))
        del corpus
        assert gc.collect() < 20  # before: every concept, mention and link of the corpus
    finally:
        gc.enable()
