"""Collects triples by subject and returns them in one canonical order.

The order is: subject IRI, then predicate (`rdf:type` first, then by IRI), then object (by its
lexical value). pyoxigraph's serialisers write triples in the order given, grouping consecutive
triples of one subject, so this order alone makes every output format byte-identical for the
same input, whatever order the stages produced the triples in. Duplicates collapse.

Sorting only the subjects (and each subject's handful of triples) is much cheaper than one sort
over millions of triples, and `Triple`s are only created for the final, deduplicated list.

A buffer made with `spill_at=N` keeps at most about N entries in memory: each time it holds
more, it writes them, sorted by subject, as one run to an anonymous temporary file, and the
iteration merges the runs with what is left in memory (an external merge sort, so a large
corpus' papers, concepts and links need not all wait in memory). The output is the same
bytes: a subject's entries from every run and from memory are concatenated in the order they
were added, then sorted stably, exactly as one in-memory list would be.

>>> from pyoxigraph import Literal, NamedNode
>>> buf = TripleBuffer()
>>> p = NamedNode("https://example.org/p")
>>> buf.add("https://example.org/b", p, Literal("2"), "2")
>>> buf.add("https://example.org/a", p, Literal("1"), "1")
>>> buf.add("https://example.org/a", RDF_TYPE, NamedNode("https://example.org/C"), "")
>>> buf.add("https://example.org/a", p, Literal("1"), "1")
>>> [str(t) for t in buf.triples()]  # doctest: +NORMALIZE_WHITESPACE
['<https://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://example.org/C>',
 '<https://example.org/a> <https://example.org/p> "1"',
 '<https://example.org/b> <https://example.org/p> "2"']
"""

from __future__ import annotations

import heapq
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import IO, Any

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from kg.rdf.terms import RDF_TYPE, Deferred

Object = NamedNode | Literal
# An object, or how to make it from its key (`kg.rdf.terms.str_term`, `iri_term`).
Term = Object | Deferred
# (predicate key, object key, predicate, object): the keys give the canonical order.
Entry = tuple[str, str, NamedNode, Term]

_SORT_KEY = itemgetter(0, 1)

BlockMaker = Callable[..., list[Triple]]
"""Makes a subject's triples, in canonical order, from a few plain arguments."""

Block = list[Triple] | tuple[BlockMaker, tuple[Any, ...]]
"""A whole subject's triples: ready, or the function and arguments that make them."""

RangeMaker = Callable[..., list[tuple[str, Block]]]
"""Makes the blocks of every subject under one IRI prefix, as (subject, block) pairs."""


def predicate_key(predicate: NamedNode) -> str:
    """The predicate's sort key: rdf:type sorts first (empty key), the rest by IRI."""
    return "" if predicate == RDF_TYPE else predicate.value


class TripleBuffer:
    """Triples grouped by subject IRI; sorted (and mostly created) once, at the end."""

    def __init__(self, spill_at: int = 0) -> None:
        """`spill_at` > 0: write the entries to a sorted run on disk whenever more than that
        many wait in memory (see module docstring); 0 keeps them all in memory."""
        self._subjects: dict[str, list[Entry]] = {}
        self._spill_at = spill_at
        self._entries = 0
        # Sorted runs on disk (not their subjects as well: issue 14, they are most of a large
        # graph's people and papers).
        self._runs: list[IO[bytes]] = []
        # Whole subjects added in canonical order (evidence, sentences): ready Triples, or
        # the function and arguments that make them when they are written.
        self._blocks: dict[str, Block] = {}
        # Whole IRI ranges (every subject under a prefix) made only when the buffer is
        # iterated: (prefix, maker, its arguments).
        self._ranges: list[tuple[str, RangeMaker, tuple[Any, ...]]] = []
        self._pkeys: dict[NamedNode, str] = {}

    def add(self, subject: str, predicate: NamedNode, obj: Term, okey: str) -> None:
        """Add one triple; `okey` is the object's lexical value (its sort key)."""
        pkey = self._pkeys.get(predicate)
        if pkey is None:
            pkey = self._pkeys[predicate] = predicate_key(predicate)
        block = self._subjects.get(subject)
        if block is None:
            if subject in self._blocks:
                raise ValueError(f"{subject} was added as a whole block already")
            self._subjects[subject] = [(pkey, okey, predicate, obj)]
        else:
            block.append((pkey, okey, predicate, obj))
        self._entries += 1
        if self._spill_at and self._entries > self._spill_at:
            self._spill()

    def _spill(self) -> None:
        """Write the entries in memory to a new run, by subject (each subject's entries in the
        order they were added), and forget them."""
        # Open until the iteration has read it (closed then, or when the buffer is dropped).
        run = tempfile.TemporaryFile(prefix="paperkg-triples-")  # noqa: SIM115
        subjects = self._subjects
        for subject in sorted(subjects):
            # One pickle a subject: a single pickler's memo (and its reader's) would keep every
            # object of the run alive until the run is read. The predicate goes as its key.
            run.write(pickle.dumps(
                (subject, [(pkey, okey, obj) for pkey, okey, _, obj in subjects[subject]]),
                protocol=pickle.HIGHEST_PROTOCOL))
        run.flush()
        self._runs.append(run)
        self._subjects = {}
        self._entries = 0
    def add_block(self, subject: str, triples: list[Triple]) -> None:
        """Add every triple of one subject at once, already in canonical order and distinct.

        The fast path for the bulk of the graph (evidence and sentence nodes): no sorting, no
        duplicate check, no second pass. No other triple of `subject` may be added.
        """
        if subject in self:
            raise ValueError(f"{subject} has triples already; a block must hold them all")
        self._blocks[subject] = triples

    def add_lazy_block(self, subject: str, make: BlockMaker, *args: Any) -> None:
        """`add_block` of the triples `make(*args)` returns, made only when the buffer is
        iterated: the bulk of a large graph then waits as a tuple of shared terms instead of
        ten `Triple` objects (which copy every IRI), so a build never holds all its triples."""
        if subject in self:
            raise ValueError(f"{subject} has triples already; a block must hold them all")
        self._blocks[subject] = (make, args)

    def add_lazy_range(self, prefix: str, make: RangeMaker, *args: Any) -> None:
        """Blocks of subjects that all start with `prefix`, made by `make(*args)` only when the
        iteration comes near `prefix`: a large graph's bulk (a paper's evidence and sentence
        nodes) then waits as the few arguments its maker needs, and the writer holds one
        range's blocks at a time (and the next one's, made when the last was taken). No
        prefix may start another (e.g. a paper IRI + "/"). A subject also added to the
        buffer itself is written from the buffer (the range's block of it must hold the
        same triples); `__contains__` does not see a range's subjects."""
        self._ranges.append((prefix, make, args))

    @property
    def spilled_runs(self) -> int:
        """How many sorted runs the buffer has written to disk so far."""
        return len(self._runs)

    def __contains__(self, subject: str) -> bool:
        """Whether the buffer holds triples of `subject`; a spilled one is looked up by reading
        the runs again (slow: the graph's writer never asks)."""
        if subject in self._subjects or subject in self._blocks:
            return True
        return any(found == subject for index, run in enumerate(self._runs)
                   for found, _ in _read_run(run, index))

    def add_triples(self, triples: Iterable[Triple]) -> None:
        """Add parsed triples (e.g. the ontology); blank nodes are refused by the contract."""
        for triple in triples:
            subject, obj = triple.subject, triple.object
            if isinstance(subject, BlankNode) or isinstance(obj, BlankNode):
                raise ValueError(f"blank node in {triple}: the graph contract has none")
            if not isinstance(subject, NamedNode) or not isinstance(obj, NamedNode | Literal):
                raise ValueError(f"unsupported term in {triple}")
            # The N-Triples form keeps literals of different datatypes apart.
            self.add(subject.value, triple.predicate, obj, str(obj))

    def triples(self) -> list[Triple]:
        """Every triple, deduplicated, in canonical order."""
        return list(self.iter_triples())

    def iter_triples(self) -> Iterator[Triple]:
        """Every triple, deduplicated, in canonical order, made as they are consumed."""
        subjects, blocks = self._subjects, self._blocks
        own: Iterable[tuple[str, Block | None]] = (
            (subject, None) for subject in sorted(subjects.keys() | blocks.keys()))
        spilled: dict[str, list[Entry]] = {}
        if self._runs:
            own = self._merge_runs(own, spilled)
        merged: Iterable[tuple[str, Block | None]] = (
            heapq.merge(own, self._range_blocks(), key=_FIRST) if self._ranges else own)
        last = None
        for subject, ranged in merged:
            if subject == last:  # a range's block of a subject the buffer holds (it came first)
                continue
            last = subject
            ready = blocks.get(subject) if ranged is None else ranged
            if ready is not None:
                if isinstance(ready, tuple):
                    make, args = ready
                    yield from make(*args)
                else:
                    yield from ready
                continue
            node = NamedNode(subject)
            block = spilled.pop(subject, None) or subjects[subject]
            block.sort(key=_SORT_KEY)
            last_p = last_o = None
            for pkey, okey, predicate, obj in block:
                if okey != last_o or pkey != last_p:  # equal keys: one triple added twice
                    yield Triple(node, predicate,
                                 obj.make(okey) if isinstance(obj, Deferred) else obj)
                    last_p, last_o = pkey, okey

    def _merge_runs(self, own: Iterable[tuple[str, Block | None]],
                    spilled: dict[str, list[Entry]]) -> Iterator[tuple[str, Block | None]]:
        """The subjects of memory and of every run, in order, each once. A spilled subject's
        entries (from every run in the order they were written, then from memory) are put in
        `spilled` just before the subject is yielded."""
        predicates = {pkey: predicate for predicate, pkey in self._pkeys.items()}
        subjects = self._subjects
        streams: list[Iterable[tuple[str, Any]]] = [
            _read_run(run, index) for index, run in enumerate(self._runs)]
        memory = len(streams)  # after the runs: memory holds the last entries added
        streams.append(((subject, (memory, None)) for subject, _ in own))
        last: str | None = None
        entries: list[Entry] = []  # of `last`, once a run had some (memory's then appended)
        for subject, (_, got) in heapq.merge(*streams, key=_run_order):
            if subject != last:
                if last is not None:
                    if entries:
                        spilled[last] = entries
                    yield last, None
                last, entries = subject, []
            if got is not None:
                entries += [(pkey, okey, predicates[pkey], obj) for pkey, okey, obj in got]
            elif entries:  # runs come first: a subject only in memory is read from there
                entries += subjects.get(subject, ())
        if last is not None:
            if entries:
                spilled[last] = entries
            yield last, None
        for run in self._runs:
            run.close()
        self._runs = []

    def _range_blocks(self) -> Iterator[tuple[str, Block]]:
        """The ranges' (subject, block) pairs in subject order: ranges by prefix (no prefix
        starts another, so each range's subjects sort together), each range sorted when made."""
        self._ranges.sort(key=_FIRST)
        for prefix, make, args in self._ranges:
            made = make(*args)
            made.sort(key=_FIRST)
            for subject, _ in made:
                if not subject.startswith(prefix):
                    raise ValueError(f"{subject} is outside its range {prefix}")
            yield from made


_FIRST = itemgetter(0)


def _run_order(item: tuple[str, tuple[int, Any]]) -> tuple[str, int]:
    """Merge key of a run's item: its subject, then the run's number (earlier runs first)."""
    return item[0], item[1][0]


def _read_run(run: IO[bytes], index: int) -> Iterator[tuple[str, tuple[int, Any]]]:
    """A run's (subject, (run number, entries)) in the order it was written."""
    run.seek(0)
    while True:
        try:
            subject, entries = pickle.load(run)  # a fresh unpickler each: no memo kept
        except EOFError:
            return
        yield subject, (index, entries)
