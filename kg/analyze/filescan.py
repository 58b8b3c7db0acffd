"""Reading the incidence from a graph file without parsing the whole file.

The analytics need three predicates (`NEEDED`, and a marker one) of a graph whose bulk is
evidence and sentence nodes. The file is read in blocks of 16 MB; each needed predicate's name
is looked for with `bytes.find` (compiled code, no Python step per line), and only the
statements that hold one are parsed by pyoxigraph:

- N-Triples: a statement is a line;
- Turtle as kg writes it (its prefix header first, one statement per subject, each predicate
  and its objects on one line indented with a tab, no multi-line literals): the line of a hit,
  behind its statement's subject, is parsed as a statement of its own. Each is checked (the
  subject's line follows the end of another statement, every line between ends in " ;", the
  hit is the line's predicate, it parses); a file not so laid out, or any doubt, is parsed
  whole instead — the same answer, only slower.

Other formats are parsed whole. `kg analyze` also learns where a previous analysis begins: the
analytics are written after a comment line (`tail_mark`) that gives their length, so when the
file ends with exactly those bytes, a new analysis copies the bytes before it and appends its own
(no parsing, no re-serialising of the graph).

On the 35,107-paper graph (676 MB of Turtle, 11.8 M triples) reading takes 11 s of CPU and
parses 650k triples; parsing every statement that names a needed predicate took 4.7 M
(docs/PERFORMANCE.md, "Analysis").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from kg.analyze.incidence import Incidence, IncidenceReader
from kg.errors import InputError
from kg.namespaces import PREFIXES
from kg.rdf.io import file_format, open_binary
from kg.rdf.terms import KG_MENTIONS, SCHEMA_DATE_PUBLISHED, SKOS_PREF_LABEL

if TYPE_CHECKING:
    from pathlib import Path

    import pyoxigraph as ox

log = logging.getLogger(__name__)

#: The predicates `IncidenceReader` takes triples of.
NEEDED = (KG_MENTIONS, SCHEMA_DATE_PUBLISHED, SKOS_PREF_LABEL)
BLOCK = 1 << 24

#: The comment line written before the analytics: `{n}` is their length in bytes.
TAIL_MARK = "# kg analyze: {n} bytes of analytics follow; a new analysis replaces them\n"
_TAIL_RE = re.compile(rb"# kg analyze: (\d+) bytes of analytics follow[^\n]*\n")
_TAIL_NEEDLE = b"# kg analyze: "


def tail_mark(size: int) -> bytes:
    """The comment line that precedes `size` bytes of analytics."""
    return TAIL_MARK.format(n=size).encode("ascii")


@dataclass(frozen=True, slots=True)
class FileScan:
    """What reading a graph file found: the incidence; whether a triple with the marker
    predicate was read (a previous analysis); and, when the file ends with the analytics a
    previous `kg analyze` wrote after its `tail_mark` and nothing of an analysis comes before
    them, the offset of that mark in the (uncompressed) file."""

    incidence: Incidence
    analysed: bool
    tail: int | None = None


def read_file(path: Path, *, marker: ox.NamedNode | None = None) -> FileScan:
    """The incidence of a graph file, streamed (never held in memory); see the module."""
    import pyoxigraph as ox

    ox_format = file_format(path).oxigraph
    if ox_format is None:
        raise InputError("kg analyze reads Turtle, N-Triples, N-Quads, TriG, RDF/XML or "
                         "JSON-LD", source=str(path))
    predicates = NEEDED + ((marker,) if marker is not None else ())
    if ox_format in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.TURTLE):
        try:
            return _scan_file(path, ox_format, predicates, marker)
        except _NotLaidOut:
            log.info("%s is not Turtle as kg writes it: parsing it whole", path)
    reader = IncidenceReader()
    found = False
    with open_binary(path) as data:
        try:
            for triple in ox.parse(data, ox_format):
                reader.add(triple)
                found = found or triple.predicate == marker
        except SyntaxError as exc:
            raise InputError(f"not valid RDF: {exc}", source=str(path)) from exc
    return FileScan(reader.incidence(), found)


class _NotLaidOut(Exception):
    """The Turtle file is not laid out as kg writes it."""


def _scan_file(path: Path, ox_format: ox.RdfFormat, predicates: tuple[ox.NamedNode, ...],
               marker: ox.NamedNode | None) -> FileScan:
    import pyoxigraph as ox

    turtle = ox_format is ox.RdfFormat.TURTLE
    reader = IncidenceReader()
    found = False
    first_marked: int | None = None  # offset of the first statement naming the marker
    with open_binary(path) as data:
        scanner = _Scanner(data, predicates, marker, turtle=turtle)
        for batch in scanner:
            text = scanner.header + b"".join(statement for _, statement in batch)
            try:
                triples = list(ox.parse(text, ox_format))
            except SyntaxError as exc:
                if turtle:
                    raise _NotLaidOut from exc
                raise InputError(f"not valid RDF: {exc}", source=str(path)) from exc
            for triple in triples:
                reader.add(triple)
                found = found or triple.predicate == marker
            if first_marked is None and marker is not None:
                first_marked = _first_with(marker, batch, scanner, ox_format)
    tail = scanner.tail
    if tail is not None and first_marked is not None and first_marked < tail:
        tail = None  # an analysis (or part of one) before the mark: not only the tail's
    return FileScan(reader.incidence(), found or scanner.marked, tail)


def _first_with(predicate: ox.NamedNode, batch: list[tuple[int, bytes]], scanner: _Scanner,
                ox_format: ox.RdfFormat) -> int | None:
    """The offset of the first statement of `batch` with a triple of `predicate` (a name in
    the text may be an object, as in the ontology, or inside a literal)."""
    import pyoxigraph as ox

    for at, statement in batch:
        if any(name in statement for name in scanner.marker_names) and any(
                t.predicate == predicate for t in ox.parse(scanner.header + statement, ox_format)):
            return at
    return None


class _Scanner:
    """Iterates over the statements of a file that name one of `predicates`, in batches (one
    per block): `(offset in the file, the statement's bytes)`. Once a `tail_mark` is passed,
    only the incidence's predicates are looked for (the marker's are the analytics'); afterwards
    `tail` is the mark's offset when its analytics end the file exactly (else None)."""

    def __init__(self, data: IO[bytes], predicates: tuple[ox.NamedNode, ...],
                 marker: ox.NamedNode | None, *, turtle: bool) -> None:
        self.data = data
        self.turtle = turtle
        self.header = b""
        self.tail: int | None = None
        self.marked = False  # a tail mark was passed
        self._end_mark = 0  # the mark's offset
        self._end: int | None = None  # where the file ends if the mark's analytics end it
        self._directives: set[bytes] = set()
        self._first = data.read(BLOCK)
        if turtle:
            self._read_header(self._first)
        self._needles = tuple(name for p in predicates for name in self.names(p))
        self.marker_names = self.names(marker) if marker is not None else ()

    def names(self, predicate: ox.NamedNode) -> tuple[bytes, ...]:
        """How `predicate` is written in the file: its IRI, and in Turtle its prefixed name
        followed by a space (a hit inside a longer name or a literal only costs a parse)."""
        full = f"<{predicate.value}>".encode()
        if not self.turtle:
            return (full,)
        return (full, *(f"{name}:{predicate.value[len(iri):]} ".encode()
                        for name, iri in PREFIXES.items() if predicate.value.startswith(iri)))

    def _read_header(self, first: bytes) -> None:
        """The leading @prefix lines, which must bind exactly kg's prefixes."""
        bound: dict[str, str] = {}
        end = 0
        while first.startswith(b"@prefix ", end):
            line_end = first.find(b"\n", end)
            match = re.fullmatch(rb"@prefix ([A-Za-z][\w.-]*)?: <([^>]*)> \.\n",
                                 first[end:line_end + 1])
            if line_end < 0 or match is None:
                raise _NotLaidOut
            bound[(match.group(1) or b"").decode()] = match.group(2).decode()
            self._directives.add(match.group(0))
            end = line_end + 1
        if bound != PREFIXES:
            raise _NotLaidOut
        self.header = first[:end]

    def __iter__(self) -> Iterator[list[tuple[int, bytes]]]:
        offset = 0  # of `text` in the file
        text = self._first
        while True:
            chunk = self.data.read(BLOCK)
            text += chunk
            cut = self._cut(text) if chunk else len(text)
            if chunk and cut == 0:
                continue
            body, text = text[:cut], text[cut:]
            if self.turtle:
                self._check_turtle(body)
            found: list[tuple[int, bytes]] = []
            mark = len(body) if self.marked else self._find_mark(body, offset)
            if mark:
                found += self._statements(body[:mark], offset, self._needles)
            if mark < len(body):
                found += self._statements(body[mark:], offset + mark, tuple(
                    n for n in self._needles if n not in self.marker_names))
            if found:
                yield found
            offset += len(body)
            if not chunk:
                break
        if self._end == offset:
            self.tail = self._end_mark

    def _cut(self, text: bytes) -> int:
        """Where the last whole statement of `text` ends (0: none does)."""
        if self.turtle:
            at = text.rfind(b" .\n")
            return 0 if at < 0 else at + 3
        return text.rfind(b"\n") + 1

    def _check_turtle(self, body: bytes) -> None:
        """No multi-line literal, and every directive is one of the header's."""
        if b'"""' in body or b"'''" in body:
            raise _NotLaidOut
        starts = [0] if body.startswith(b"@") else []
        at = body.find(b"\n@")
        while at >= 0:
            starts.append(at + 1)
            at = body.find(b"\n@", at + 1)
        for start in starts:
            if body[start:body.find(b"\n", start) + 1] not in self._directives:
                raise _NotLaidOut

    def _find_mark(self, body: bytes, offset: int) -> int:
        """The position of the first tail mark in `body` (its length if none)."""
        at = body.find(_TAIL_NEEDLE)
        while at >= 0:
            match = _TAIL_RE.match(body, at)
            if match is not None and (at == 0 or body[at - 1:at] == b"\n"):
                self.marked = True
                self._end_mark = offset + at
                self._end = offset + at + len(match.group(0)) + int(match.group(1))
                return at
            at = body.find(_TAIL_NEEDLE, at + 1)
        return len(body)

    def _statements(self, body: bytes, offset: int, needles: tuple[bytes, ...]
                    ) -> list[tuple[int, bytes]]:
        """The statements of `body` that hold a needle; in Turtle, each hit's line made a
        statement of its own (the subject and that line's predicate and objects)."""
        if not self.turtle:
            starts: set[int] = set()
            for needle in needles:
                at = body.find(needle)
                while at >= 0:
                    start = body.rfind(b"\n", 0, at) + 1
                    starts.add(start)
                    end = body.find(b"\n", at)
                    at = -1 if end < 0 else body.find(needle, end)
            found = []
            for start in sorted(starts):
                end = body.find(b"\n", start)
                found.append((offset + start, body[start:] if end < 0 else body[start:end + 1]))
            return found
        lines: dict[int, bytes] = {}
        for needle in needles:
            at = body.find(needle)
            while at >= 0:
                start = body.rfind(b"\n", 0, at) + 1
                if body[at - 1] == 32 and body[start] == 9 and body[at - 2] != 59 and \
                        body[start + 1] not in b" \t":
                    # After a space (not "; ") on a line indented by one tab: an object
                    # ("kg:role kg:mentions") or inside a literal. Checked first: most hits
                    # on a big graph are these.
                    at = body.find(needle, at + 1)
                    continue
                end = body.find(b"\n", at) + 1
                if start not in lines:
                    statement = self._turtle_line(body, start, end, at)
                    if statement is not None:
                        lines[start] = statement
                at = body.find(needle, end) if end else -1
        return [(offset + start, lines[start]) for start in sorted(lines)]

    def _turtle_line(self, body: bytes, start: int, end: int, at: int) -> bytes | None:
        """The line `body[start:end]` as a statement when the name at `at` is its predicate
        (None when it is an object or inside a literal)."""
        tabbed = body.startswith(b"\t", start)
        if body[start + tabbed:start + tabbed + 1].isspace():
            raise _NotLaidOut  # indented otherwise than by one tab
        if body[at - 2:at].rstrip() == b";":
            raise _NotLaidOut  # a predicate after another on the same line
        if tabbed:
            if at != start + 1:
                return None
            subject_line = self._subject_line(body, start)
            subject = body[subject_line:body.find(b" ", subject_line)]
            text = subject + b" " + body[start + 1:end]
        else:
            if body.find(b" ", start) != at - 1:
                return None
            if start and not body.endswith(b" .\n", 0, start):
                raise _NotLaidOut  # the line before a subject's does not end a statement
            text = body[start:end]
        if not text.endswith((b" ;\n", b" .\n")):
            raise _NotLaidOut  # the predicate's objects go on over the next line
        return text[:-2] + b".\n"

    def _subject_line(self, body: bytes, line: int) -> int:
        """The start of the subject's line of the statement whose (indented) line starts at
        `line`; every line between ends a predicate's objects (nothing nested)."""
        start = line
        while body.startswith(b"\t", start):
            start = body.rfind(b"\n", 0, start - 1) + 1
        if start and not body.endswith(b" .\n", 0, start):
            raise _NotLaidOut  # the line before the subject's does not end a statement
        between = body[start:line]
        if between.count(b"\n") != between.count(b" ;\n"):
            raise _NotLaidOut
        return start
