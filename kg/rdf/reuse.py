"""Writing a graph again by copying what did not change from the previous one (issue 14).

An incremental build (a few new papers on a warm parse cache) writes a graph that is mostly
the previous one: each paper's evidence and sentence nodes, the bulk of the graph, are the same
bytes unless the paper, its claims or the IRIs of their concepts changed. The writer
(`write_reusing`) takes the graph in segments (`kg.rdf.build.iter_segments`): every subject
under `<paper IRI>/` is one **region** with a digest of all it is made from (the paper's IRI
and texts, its claims with their concepts' IRIs, roles, spans, sentences and extractors, and
the buffer's own triples under the prefix: relation evidence, their sentences). A region whose
digest the previous graph's **region index** holds is copied from the previous graph's bytes
(checked against the digest of the bytes written then: a graph changed since is never copied
from); any other is made and serialised as a full build does. Serialised apart, the segments
are the bytes of one serialisation (pyoxigraph writes each subject as one statement ending in
` .` and a line break; every call's prefix lines are dropped but the first), so the graph is
byte for byte the one a full build writes (tests compare them).

The index (`INDEX_FILE` in the parse cache's folder: `kg build` reuses only with a cache) names
the last graph written with that cache, its format, and per region its digest, where its bytes
are, their digest and how many triples they hold. It is only used when written by the same
code (`code_version`: the writer's modules, the package and pyoxigraph versions) for the same
format; otherwise everything is made, as in a full build.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, cast

import pyoxigraph
from pyoxigraph import NamedNode, Triple, serialize

from kg import __version__
from kg.namespaces import PREFIXES
from kg.rdf.ahead import AHEAD_AT, Made, RegionsAhead
from kg.rdf.canonical import Region, Segments
from kg.rdf.formats import GraphFormat
from kg.rdf.serialize import replacing

__all__ = ["INDEX_FILE", "Written", "code_version", "range_digest", "reusable",
           "write_reusing"]

INDEX_FILE = "graph-regions.bin"
FORMAT = 2
DIGEST_SIZE = 16
# A region's row: its inputs' digest, where its bytes start, their length, their digest,
# its triples, its range's digest (`Region.range_digest`).
_ROW = struct.Struct(f"<{DIGEST_SIZE}sQQ{DIGEST_SIZE}sI{DIGEST_SIZE}s")
# What the bytes of a graph depend on beside its regions' inputs: these modules' code.
_MODULES = ("ahead.py", "build.py", "canonical.py", "iris.py", "terms.py", "relations.py",
            "reuse.py", "serialize.py")


def range_digest(parts: Iterable[str]) -> bytes:
    """The digest of a range's inputs, given as strings (`kg.rdf.build`)."""
    return hashlib.blake2b("\x00".join(parts).encode("utf-8", "surrogatepass"),
                           digest_size=DIGEST_SIZE).digest()


@cache
def code_version() -> str:
    """A digest of the code that shapes a region's bytes (see the module)."""
    found = hashlib.blake2b(f"{__version__} {pyoxigraph.__version__}".encode(),
                            digest_size=DIGEST_SIZE)
    here = Path(__file__).parent
    for name in _MODULES:
        found.update((here / name).read_bytes())
    found.update((here.parent / "namespaces.py").read_bytes())
    return found.hexdigest()


def reusable(fmt: GraphFormat, output: Path) -> bool:
    """Whether a graph in `fmt` at `output` can be written by `write_reusing`: Turtle or
    N-Triples, not gzipped (the regions' offsets are in the file's own bytes)."""
    return fmt in (GraphFormat.TURTLE, GraphFormat.NTRIPLES) and output.suffix.lower() != ".gz"


@dataclass
class Written:
    """What `write_reusing` wrote: triples, regions copied and made."""

    triples: int = 0
    copied: int = 0
    made: int = 0
    ahead: int = 0  # of `made`, by a second process (`kg.rdf.ahead`)
    rows: list[bytes] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.copied} of {self.copied + self.made} paper regions copied from the "
                "previous graph" + (f", {self.ahead} made ahead by a second process"
                                    if self.ahead else ""))


@dataclass(frozen=True, slots=True)
class _Index:
    graph: Path
    rows: dict[bytes, tuple[int, int, bytes, int]]
    ranges: frozenset[bytes]  # the regions' ranges' digests


def write_reusing(segments: Iterable[Iterator[Triple] | Region], output: Path,
                  fmt: GraphFormat, folder: str | Path, *, ahead_at: int | None = None,
                  ahead: bool = True) -> Written:
    """Write the segments (`kg.rdf.build.iter_segments`) as the graph `output` (through
    `replacing`: all or nothing), copying each region the index in `folder` has from the
    graph it names; then write the index of the new graph into `folder`. Given `Segments`
    with at least `ahead_at` (default `AHEAD_AT`) regions to make, a forked process makes
    them ahead of the writer (`kg.rdf.ahead`; the same bytes), unless `ahead` is False."""
    folder = Path(folder)
    previous = _read_index(folder / INDEX_FILE, fmt)
    written = Written()
    source = _open(previous.graph) if previous is not None else None
    child = None
    try:
        if ahead and isinstance(segments, Segments):
            child = _start_ahead(segments, previous, fmt,
                                 AHEAD_AT if ahead_at is None else ahead_at)
        with replacing(output, "the graph") as raw:
            sink = _Sink(raw, _header(fmt))
            for segment in segments:
                if isinstance(segment, Region):
                    _region(segment, previous, source, sink, fmt, written, child)
                else:
                    written.triples += sink.serialize(segment, fmt)
    finally:
        if child is not None:
            child.close()
        if source is not None:
            source.close()
    try:
        _write_index(folder / INDEX_FILE, output, fmt, written.rows)
    except OSError:  # the graph is written; the next build only copies nothing
        with suppress(OSError):
            (folder / INDEX_FILE).unlink(missing_ok=True)
    return written


def _start_ahead(segments: Segments, previous: _Index | None, fmt: GraphFormat,
                 at_least: int) -> RegionsAhead | None:
    """A child making the ranges whose regions the previous graph cannot hold (their range's
    digest is new) ahead of the writer, if there are enough of them (`RegionsAhead.start`)."""
    ranges = segments.ranges()
    known = previous.ranges if previous is not None else frozenset()
    plan = [i for i, lazy in enumerate(ranges) if lazy.digest is None or lazy.digest not in known]
    header = _header(fmt)

    def render(triples: list[Triple]) -> bytes:
        collected = _Collect(header)
        collected.serialize(triples, fmt)
        return b"".join(collected.parts)

    def split(data: bytes, counts: list[int]) -> list[int] | None:
        return _statement_ends(data, counts, fmt)

    return RegionsAhead.start(ranges, plan, render, split, at_least)


def _region(region: Region, previous: _Index | None, source: IO[bytes] | None, sink: _Sink,
            fmt: GraphFormat, written: Written, ahead: RegionsAhead | None = None) -> None:
    """Copy the region from the previous graph, or take it from `ahead`, or make it; note
    it in `written.rows`."""
    digest = region.digest()
    found = previous.rows.get(digest) if previous is not None and digest is not None else None
    data = _read(source, found) if found is not None and source is not None else None
    if data is not None and found is not None:
        region.skip()
        triples = found[3]
        written.copied += 1
    else:
        made = ahead.take(region.index) if ahead is not None else None
        joined = _joined(region, made, sink.header, fmt) if made is not None else None
        if joined is not None:
            data, triples = joined
            written.ahead += 1
        else:
            collected = _Collect(sink.header)
            triples = collected.serialize(region.triples(), fmt)
            data = b"".join(collected.parts)
        written.made += 1
    start = sink.write_raw(data)
    written.triples += triples
    if digest is not None and data:
        written.rows.append(_ROW.pack(digest, start, len(data), _digest(data), triples,
                                      region.range_digest or bytes(DIGEST_SIZE)))


def _joined(region: Region, made: Made, header: bytes,
            fmt: GraphFormat) -> tuple[bytes, int] | None:
    """The region's bytes and triples from its range made elsewhere and the buffer's own
    subjects under its prefix, in order (a subject of both: the buffer's, as
    `Region.triples` has it); None when the made bytes cannot be cut by subject."""
    own = region.own_subjects
    if not own:
        return made.data, sum(made.counts)
    if made.ends is None:
        return None
    parts: list[bytes] = []
    triples = 0
    i, start, subjects = 0, 0, made.subjects
    for subject in own:
        while i < len(subjects) and subjects[i] < subject:
            parts.append(made.data[start : made.ends[i]])
            triples += made.counts[i]
            start = made.ends[i]
            i += 1
        if i < len(subjects) and subjects[i] == subject:
            start = made.ends[i]
            i += 1
        collected = _Collect(header)
        triples += collected.serialize(region.own_triples(subject), fmt)
        parts += collected.parts
    parts.append(made.data[start:])
    triples += sum(made.counts[i:])
    return b"".join(parts), triples


def _statement_ends(data: bytes, counts: list[int], fmt: GraphFormat) -> list[int] | None:
    """Where each subject's bytes end in a serialisation of subjects with `counts` triples:
    in N-Triples a line a triple, in Turtle one statement a subject, ending " .\n" (a
    literal's line breaks are escaped); None when the bytes do not hold as many."""
    ends: list[int] = []
    at = 0
    if fmt is GraphFormat.NTRIPLES:
        for count in counts:
            for _ in range(count):
                at = data.find(b"\n", at) + 1
                if at == 0:
                    return None
            ends.append(at)
    else:
        for _ in counts:
            at = data.find(b" .\n", at) + 3
            if at == 2:
                return None
            ends.append(at)
    return ends if at == len(data) else None


def _read(source: IO[bytes], found: tuple[int, int, bytes, int]) -> bytes | None:
    """The bytes of a region of the previous graph, or None when they are not those written
    then (the file changed)."""
    at, size, digest, _ = found
    source.seek(at)
    data = source.read(size)
    return data if len(data) == size and _digest(data) == digest else None


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


def _open(path: Path) -> IO[bytes] | None:
    try:
        return path.open("rb")
    except OSError:
        return None


@cache
def _header(fmt: GraphFormat) -> bytes:
    """What every serialisation in `fmt` begins with (the prefix lines of Turtle)."""
    probe = "http://example.org/probe"
    data = serialize([Triple(NamedNode(probe), NamedNode(probe), NamedNode(probe))], None,
                     fmt.rdf_format, prefixes=PREFIXES)
    assert data is not None
    return data[: data.index(f"<{probe}>".encode())]


class _Collect:
    """A serialisation's bytes without its header, kept in memory (a region: a few KB)."""

    def __init__(self, header: bytes) -> None:
        self.header = header
        self.parts: list[bytes] = []
        self._skip = 0

    def serialize(self, triples: Iterable[Triple], fmt: GraphFormat) -> int:
        """Serialise `triples` into `parts` without the header; how many there were."""
        counted = _Counter(triples)
        self._skip = len(self.header)
        serialize(counted, cast(IO[bytes], self), fmt.rdf_format, prefixes=PREFIXES)
        if self._skip not in (0, len(self.header)):
            raise AssertionError("the serialiser wrote part of its header")
        return counted.count

    def write(self, data: bytes) -> int:
        size = len(data)
        if self._skip:
            cut = min(self._skip, size)
            if data[:cut] != self.header[len(self.header) - self._skip :][:cut]:
                raise AssertionError("the serialiser wrote another header")
            self._skip -= cut
            data = data[cut:]
        if data:
            self._out(data)
        return size

    def flush(self) -> None:
        """(The serialiser flushes its output when done.)"""

    def _out(self, data: bytes) -> None:
        self.parts.append(bytes(data))


class _Sink(_Collect):
    """The graph file: serialisations without their headers, and copied bytes; the header
    is written once, before the first bytes (an empty graph has none, as pyoxigraph writes)."""

    def __init__(self, raw: IO[bytes], header: bytes) -> None:
        super().__init__(header)
        self._raw = raw
        self.position = 0

    def _out(self, data: bytes) -> None:
        self.write_raw(data)

    def write_raw(self, data: bytes) -> int:
        """Write bytes as they are; where they start."""
        if self.position == 0 and data:
            self._raw.write(self.header)
            self.position = len(self.header)
        start = self.position
        self._raw.write(data)
        self.position += len(data)
        return start


class _Counter:
    """Triples passing through, counted."""

    def __init__(self, triples: Iterable[Triple]) -> None:
        self._triples = triples
        self.count = 0

    def __iter__(self) -> Iterator[Triple]:
        for triple in self._triples:
            self.count += 1
            yield triple


def _read_index(path: Path, fmt: GraphFormat) -> _Index | None:
    """The index in `path` when it fits this code and format, else None."""
    try:
        with path.open("rb") as data:
            meta = json.loads(data.readline())
            body = data.read()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or (
            meta.get("code") != code_version() or meta.get("rdf") != fmt.value) or (
            len(body) % _ROW.size or not isinstance(meta.get("graph"), str)):
        return None
    rows: dict[bytes, tuple[int, int, bytes, int]] = {}
    ranges: set[bytes] = set()
    for digest, at, size, out, triples, lazy in _ROW.iter_unpack(body):
        rows[digest] = (at, size, out, triples)
        ranges.add(lazy)
    return _Index(Path(meta["graph"]), rows, frozenset(ranges))


def _write_index(path: Path, graph: Path, fmt: GraphFormat, rows: list[bytes]) -> None:
    """Write the index of `graph` to `path` (a temporary file renamed into place)."""
    meta = {"format": FORMAT, "code": code_version(), "rdf": fmt.value,
            "graph": str(graph.resolve())}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(json.dumps(meta, sort_keys=True).encode() + b"\n")
            out.write(b"".join(rows))
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
