"""A Turtle or N-Triples graph file as its subject blocks: what `kg.query.delta` compares to
load a grown graph into a store by its difference.

pyoxigraph's serialiser (every graph `kg build` and `kg analyze` write) puts each subject's
triples in one statement: a line at column 0 that starts with the subject, then indented lines
(`kg.rdf.serialize`); an N-Triples file is one statement a line. Cut at every line break that
is not followed by a space or a tab, such a file is a list of **blocks**, one statement each,
whose text alone says its triples (given the prefixes). Cutting is done on the bytes, without
parsing: only the blocks that changed are parsed.

A file splits only when nothing in it makes the text of a block depend on more than the block
and the prefixes: no `@base`, no prefix declared twice to different IRIs, no long strings
(`\"\"\"`, which may hold a line break at column 0), no blank node or collection as a subject,
no escapes in a subject's IRI. Otherwise `Unsplittable` says why, and the store is loaded whole.
Whether every block really is one statement of that subject is checked when the file is parsed
(`SubjectCheck`).

>>> blocks = split_bytes(b'@prefix ex: <http://example.org/> .\\nex:a ex:p "1" ;\\n'
...                      b'\\tex:q ex:b .\\n<http://example.org/b> ex:p "2" .\\n')
>>> len(blocks), blocks.prefixes
(2, {'ex': 'http://example.org/'})
>>> blocks.keys[16:] == subject_key("http://example.org/b")
True
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

import pyoxigraph as ox

from kg.rdf.io import file_format, open_binary

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Blocks",
    "SubjectCheck",
    "Unsplittable",
    "blocks_of",
    "split_bytes",
    "split_file",
    "statements",
    "subject_key",
]

#: Bytes read from the file at a time.
CHUNK = 1 << 24
DIGEST_SIZE = 16

# A block ends at a line break that is not followed by indentation (or at the end of the file).
_CUT = re.compile(rb"\n(?![\t ])")
_PREFIX = re.compile(rb"(?:@prefix|PREFIX)\s+([A-Za-z0-9_.\-]*):\s*<([^<>\\\s]*)>\s*\.?\s*$",
                     re.IGNORECASE)
_DIRECTIVE = re.compile(rb"(?:@|PREFIX\s|BASE\s|VERSION\s)", re.IGNORECASE)
_LONG_STRINGS = (b'"""', b"'''")


class Unsplittable(Exception):
    """The file is not made of self-contained subject blocks (the message says why)."""


@dataclass(slots=True)
class Blocks:
    """A graph file's blocks in file order: each one's digest and its subject's (BLAKE2b, 16
    bytes each, packed), where each starts in the (decompressed) text and its length, the
    subject IRIs (one a line, into `subjects` when given: a file, so that a large graph's IRIs
    do not stay in memory), and the prefixes the file declares (with which the blocks' text is
    read)."""

    prefixes: dict[str, str] = field(default_factory=dict)
    digests: bytearray = field(default_factory=bytearray)
    keys: bytearray = field(default_factory=bytearray)
    subjects: IO[bytes] | None = None
    starts: array[int] = field(default_factory=lambda: array("q"))
    sizes: array[int] = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.digests) // DIGEST_SIZE

    def digest_array(self) -> np.ndarray:
        """The digests as one numpy array (dtype `S16`: fixed 16 bytes, compared as bytes)."""
        return _array(self.digests)

    def key_array(self) -> np.ndarray:
        """The subjects' digests, as `digest_array`."""
        return _array(self.keys)

    def header(self) -> bytes:
        """Turtle prefix lines declaring `prefixes`, to parse blocks with."""
        return b"".join(
            b"@prefix " + name.encode() + b": <" + iri.encode() + b"> .\n"
            for name, iri in sorted(self.prefixes.items())
        )


def subject_key(iri: str) -> bytes:
    """The digest of a subject IRI, as `Blocks.keys` holds it."""
    return hashlib.blake2b(iri.encode(), digest_size=DIGEST_SIZE).digest()


def _array(packed: bytes | bytearray) -> np.ndarray:
    import numpy as np

    return np.frombuffer(bytes(packed), dtype=f"S{DIGEST_SIZE}")


def split_file(path: Path | str, subjects: IO[bytes] | None = None) -> Blocks:
    """The blocks of a Turtle or N-Triples file (gzipped too), their subject IRIs written to
    `subjects` one a line; `Unsplittable` when it has none that can be compared (see the
    module)."""
    fmt = file_format(path)
    if fmt.name not in ("ttl", "nt"):
        raise Unsplittable(f"a {fmt.name} file is not cut into blocks (only Turtle, N-Triples)")
    blocks = Blocks(subjects=subjects)
    with open_binary(path) as data:
        for start, block in _cut(iter(lambda: data.read(CHUNK), b"")):
            _add(blocks, block, start)
    return blocks


def split_bytes(data: bytes, subjects: IO[bytes] | None = None) -> Blocks:
    """The blocks of Turtle or N-Triples text (as `split_file`)."""
    blocks = Blocks(subjects=subjects)
    for start, block in _cut([data]):
        _add(blocks, block, start)
    return blocks


def blocks_of(path: Path | str) -> Iterator[bytes]:
    """The raw blocks of a file in order (comments and directives included, blank lines not)."""
    with open_binary(path) as data:
        for _, block in _cut(iter(lambda: data.read(CHUNK), b"")):
            yield block


def _cut(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """The raw blocks of the text the chunks make, each with where it starts in that text."""
    rest, at = b"", 0  # what is not cut yet, and where it starts
    for chunk in chunks:
        data = rest + chunk
        start = 0
        for found in _CUT.finditer(data):
            end = found.start()
            if end == len(data) - 1:
                break  # the chunk ends with a line break: the next one may continue the block
            part = data[start:end]
            if part.strip():
                yield at + start, part.rstrip(b"\r\n")
            start = end + 1
        rest, at = data[start:], at + start
    if rest.strip():
        yield at, rest.rstrip(b"\r\n")


def _add(blocks: Blocks, block: bytes, start: int) -> None:
    """Add one raw block that starts at `start`: a comment or prefix line, or a statement."""
    if _statement(block, blocks.prefixes):
        iri = _subject(block, blocks.prefixes)
        blocks.digests += hashlib.blake2b(block, digest_size=DIGEST_SIZE).digest()
        blocks.keys += subject_key(iri)
        blocks.starts.append(start)
        blocks.sizes.append(len(block))
        if blocks.subjects is not None:
            blocks.subjects.write(iri.encode() + b"\n")


def statements(path: Path | str) -> Iterator[bytes]:
    """The statement blocks of a file that `split_file` splits, in the order of its digests."""
    prefixes: dict[str, str] = {}
    for block in blocks_of(path):
        if _statement(block, prefixes):
            yield block


def _statement(block: bytes, prefixes: dict[str, str]) -> bool:
    """True for a statement; False for a comment or a prefix line (added to `prefixes`)."""
    first = block[:1]
    if first == b"#":
        if b"\n" in block:
            raise Unsplittable("a comment line is followed by indented lines")
        return False
    if first in b"@PpBbVv" and _DIRECTIVE.match(block):
        found = _PREFIX.match(block)
        if found is None:
            raise Unsplittable(f"a directive other than a one-line prefix: {block[:80]!r}")
        name, iri = found.group(1).decode(), found.group(2).decode()
        if prefixes.setdefault(name, iri) != iri:
            raise Unsplittable(f"the prefix {name!r} is declared twice, to different IRIs")
        return False
    if _LONG_STRINGS[0] in block or _LONG_STRINGS[1] in block:
        raise Unsplittable("a long string (triple quotes)")
    return True


def _subject(block: bytes, prefixes: dict[str, str]) -> str:
    """The IRI of the block's subject, from its first word."""
    token = block.split(None, 1)[0]
    if b"\\" in token:
        raise Unsplittable(f"an escape in a subject: {token[:80]!r}")
    if token.startswith(b"<") and not token.startswith(b"<<") and token.endswith(b">"):
        iri = token[1:-1].decode()
        if ":" not in iri:
            raise Unsplittable(f"a relative IRI as a subject: {iri[:80]!r}")
        return iri
    name, colon, local = token.partition(b":")
    if colon and not token.startswith((b"_:", b"[", b"(", b"<")):
        base = prefixes.get(name.decode())
        if base is not None:
            return base + local.decode()
    raise Unsplittable(f"a subject that is not an IRI: {token[:80]!r}")


class SubjectCheck:
    """Checks, as the quads of blocks go by (parsed in order), that every block is one
    statement of its subject with no blank nodes: the quads' subjects, run by run, must be the
    blocks' subjects (`keys`: their digests, packed; a block of two statements would show one
    more run).

    `ok` is False once anything does not fit; `wrap` passes the quads on unchanged.
    """

    def __init__(self, keys: bytes | bytearray):
        self._keys = bytes(keys)
        self._at = 0  # the offset in `keys` of the next run's subject
        self._last: ox.NamedNode | None = None
        self.ok = True

    def wrap(self, quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
        for quad in quads:
            subject = quad.subject
            if subject != self._last:
                self._see(subject)
            if isinstance(quad.object, ox.BlankNode | ox.Triple):
                self.ok = False
            yield quad

    def _see(self, subject: object) -> None:
        keys, at = self._keys, self._at
        if not self.ok or not isinstance(subject, ox.NamedNode) or at >= len(keys):
            self.ok, self._last = False, None
            return
        key = subject_key(subject.value)
        if keys[at : at + DIGEST_SIZE] != key:
            self.ok, self._last = False, None
            return
        at += DIGEST_SIZE
        while keys[at : at + DIGEST_SIZE] == key:  # the same subject's next blocks
            at += DIGEST_SIZE
        self._at, self._last = at, subject

    def done(self) -> bool:
        """True when every block was seen, each as one run of its own subject."""
        return self.ok and self._at == len(self._keys)
