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

import hashlib
import heapq
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import IO, Any, NamedTuple

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


class LazyRange(NamedTuple):
    """Every subject under `prefix`, made by `make(*args)` when written; `digest`: of all
    `make(*args)` depends on (`TripleBuffer.add_lazy_range`)."""

    prefix: str
    make: RangeMaker
    args: tuple[Any, ...]
    digest: bytes | None


RUN_BATCH = 64
"""Subjects one pickle of a sorted run holds. Not the whole run: a single pickler's memo (and
its reader's) would keep every object of the run alive until the run is read; not one subject:
a pickle's own cost then dominates (issue 14: at 35k papers the runs hold ~1 M subjects; 200,000
subjects of 3 entries, one a pickle against 64: written in 0.93 s against 0.58, read in 0.54
against 0.23, 80 against 42 MB, since the predicates' keys are pickled once a batch)."""


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
        self._ranges: list[LazyRange] = []
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
        batch: list[tuple[str, list[tuple[str, str, Term]]]] = []
        for subject in sorted(subjects):
            # The predicate goes as its key.
            batch.append((subject, [(pkey, okey, obj) for pkey, okey, _, obj in subjects[subject]]))
            if len(batch) == RUN_BATCH:
                run.write(pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
                batch = []
        if batch:
            run.write(pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
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

    def add_lazy_range(self, prefix: str, make: RangeMaker, *args: Any,
                       digest: bytes | None = None) -> None:
        """Blocks of subjects that all start with `prefix`, made by `make(*args)` only when the
        iteration comes near `prefix`: a large graph's bulk (a paper's evidence and sentence
        nodes) then waits as the few arguments its maker needs, and the writer holds one
        range's blocks at a time (and the next one's, made when the last was taken). No
        prefix may start another (e.g. a paper IRI + "/"). A subject also added to the
        buffer itself is written from the buffer (the range's block of it must hold the
        same triples); `__contains__` does not see a range's subjects. `digest`: of
        everything `make(*args)` depends on (`Region.digest`)."""
        self._ranges.append(LazyRange(prefix, make, args, digest))

    def ranges(self) -> list[LazyRange]:
        """The lazy ranges in the order they are written (`Region.index` numbers them)."""
        self._ranges.sort(key=_FIRST)
        return self._ranges

    def close(self) -> None:
        """Forget every triple, and close the runs: the buffer is empty. A lazy range's maker is
        often a method of what holds the buffer (`kg.rdf.build`), a reference cycle that would
        keep both, and the corpus they read, until the cyclic collector ran (issue 14)."""
        for run in self._runs:
            run.close()
        self._subjects, self._blocks, self._ranges, self._runs = {}, {}, [], []
        self._entries = 0

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
        for segment in self.iter_segments():
            yield from segment.triples() if isinstance(segment, Region) else segment

    def iter_segments(self) -> Iterator[Iterator[Triple] | Region]:
        """`iter_triples` in segments, in order: runs of the buffer's own subjects (iterators
        of triples), and for each lazy range a `Region` (every subject under its prefix: the
        range's blocks and the buffer's own subjects there), which a writer may take whole
        from an earlier graph instead of making it (`kg.rdf.reuse`). Each segment must be
        used up (a region: `triples()` or `skip()`) before the next one is asked for."""
        subjects, blocks = self._subjects, self._blocks
        own: Iterable[tuple[str, Block | None]] = (
            (subject, None) for subject in sorted(subjects.keys() | blocks.keys()))
        spilled: dict[str, list[Entry]] = {}
        if self._runs:
            own = self._merge_runs(own, spilled)
        names = _Peek(subject for subject, _ in own)
        for index, lazy in enumerate(self.ranges()):
            prefix = lazy.prefix
            if names.head is not None and names.head < prefix:
                yield self._own_until(names, prefix, spilled)
            inside = []  # the buffer's own subjects under the prefix (they sort together)
            while names.head is not None and names.head.startswith(prefix):
                inside.append(names.pop())
            yield Region(self, index, lazy, inside, spilled)
        if names.head is not None:
            yield self._own_until(names, None, spilled)

    def _own_until(self, names: _Peek, limit: str | None,
                   spilled: dict[str, list[Entry]]) -> Iterator[Triple]:
        """The triples of the buffer's own subjects from `names`, up to `limit` (excluded)."""
        while names.head is not None and (limit is None or names.head < limit):
            yield from self._own(names.pop(), spilled)

    def _own(self, subject: str, spilled: dict[str, list[Entry]]) -> Iterator[Triple]:
        """One of the buffer's own subjects' triples (a block, or its entries sorted)."""
        ready = self._blocks.get(subject)
        if ready is not None:
            yield from block_triples(ready)
            return
        node = NamedNode(subject)
        block = spilled.pop(subject, None) or self._subjects[subject]
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

_FIRST = itemgetter(0)


def block_triples(ready: Block) -> list[Triple]:
    """A block's triples (made now if it is lazy)."""
    if isinstance(ready, tuple):
        make, args = ready
        return make(*args)
    return ready


class _Peek:
    """An iterator of subjects whose next one can be looked at (`head`, None at the end)."""

    def __init__(self, items: Iterator[str]) -> None:
        self._items = items
        self.head: str | None = next(items, None)

    def pop(self) -> str:
        head = self.head
        assert head is not None
        self.head = next(self._items, None)
        return head


class Region:
    """Every subject under one lazy range's prefix, in order (`TripleBuffer.iter_segments`):
    the range's blocks, made by its maker, and the buffer's own subjects under the prefix
    (written from the buffer when both have one). Use it up with `triples()`, `skip()` or,
    when its range's blocks were made elsewhere (`range_blocks`), `own_triples` of each of
    `own_subjects`. `index`: its range's place in `TripleBuffer.ranges()`."""

    def __init__(self, buffer: TripleBuffer, index: int, lazy: LazyRange, inside: list[str],
                 spilled: dict[str, list[Entry]]) -> None:
        self.prefix = lazy.prefix
        self.index = index
        self._buffer = buffer
        self._lazy = lazy
        self._inside = inside
        self._spilled = spilled

    @property
    def range_digest(self) -> bytes | None:
        """The digest given to `add_lazy_range` (of what the range's maker reads)."""
        return self._lazy.digest

    @property
    def own_subjects(self) -> list[str]:
        """The buffer's own subjects under the prefix, in order."""
        return self._inside

    def digest(self) -> bytes | None:
        """A digest of all the region's triples depend on: the range's digest (given to
        `add_lazy_range`) and the buffer's own entries under the prefix; None when the range
        has none, or a whole block of the buffer's own lies under the prefix."""
        if self._lazy.digest is None:
            return None
        found = hashlib.blake2b(self._lazy.digest, digest_size=16)
        for subject in self._inside:
            if subject in self._buffer._blocks:
                return None
            block = self._spilled.get(subject) or self._buffer._subjects[subject]
            block.sort(key=_SORT_KEY)
            found.update(b"\x00".join(
                [subject.encode("utf-8", "surrogatepass"),
                 *(f"{pkey}\x01{okey}\x01{_kind(obj)}".encode("utf-8", "surrogatepass")
                   for pkey, okey, _, obj in block)]) + b"\x02")
        return found.digest()

    def triples(self) -> Iterator[Triple]:
        """The region's triples in canonical order, made now."""
        made = range_blocks(self._lazy)
        own: Iterable[tuple[str, Block | None]] = ((subject, None) for subject in self._inside)
        last = None
        for subject, ranged in heapq.merge(own, made, key=_FIRST):
            if subject == last:  # a range's block of a subject the buffer holds (it came first)
                continue
            last = subject
            if ranged is None:
                yield from self._buffer._own(subject, self._spilled)
            else:
                yield from block_triples(ranged)

    def own_triples(self, subject: str) -> Iterator[Triple]:
        """The triples of one of `own_subjects`, in canonical order (each taken once)."""
        return self._buffer._own(subject, self._spilled)

    def skip(self) -> None:
        """Let the region go unmade (its entries spilled from the buffer go too)."""
        for subject in self._inside:
            self._spilled.pop(subject, None)


class Segments:
    """The segments of a buffer filled when first asked for (`TripleBuffer.iter_segments`):
    `ranges()` fills it and gives its lazy ranges before any segment is taken (a writer may
    start making them elsewhere, `kg.rdf.ahead`); iterating fills it if need be, yields the
    segments once and then closes the buffer."""

    def __init__(self, fill: Callable[[], TripleBuffer]) -> None:
        self._fill = fill
        self._buffer: TripleBuffer | None = None

    def ranges(self) -> list[LazyRange]:
        return self._filled().ranges()

    def __iter__(self) -> Iterator[Iterator[Triple] | Region]:
        buffer = self._filled()
        try:
            yield from buffer.iter_segments()
        finally:
            buffer.close()  # what filled it goes with it (`TripleBuffer.close`)

    def _filled(self) -> TripleBuffer:
        if self._buffer is None:
            self._buffer = self._fill()
        return self._buffer


def range_blocks(lazy: LazyRange) -> list[tuple[str, Block]]:
    """A lazy range's blocks, made now, sorted by subject (each must lie under the prefix)."""
    made = lazy.make(*lazy.args)
    made.sort(key=_FIRST)
    for subject, _ in made:
        if not subject.startswith(lazy.prefix):
            raise ValueError(f"{subject} is outside its range {lazy.prefix}")
    return made


def _kind(obj: Term) -> str:
    """What, beside its key, tells an entry's object apart (`Region.digest`)."""
    if isinstance(obj, Deferred):
        return obj.name
    if isinstance(obj, Literal):
        return str(obj)
    return "iri"


def _run_order(item: tuple[str, tuple[int, Any]]) -> tuple[str, int]:
    """Merge key of a run's item: its subject, then the run's number (earlier runs first)."""
    return item[0], item[1][0]


def _read_run(run: IO[bytes], index: int) -> Iterator[tuple[str, tuple[int, Any]]]:
    """A run's (subject, (run number, entries)) in the order it was written."""
    run.seek(0)
    while True:
        try:
            batch = pickle.load(run)  # a fresh unpickler each: no memo kept
        except EOFError:
            return
        for subject, entries in batch:
            yield subject, (index, entries)
