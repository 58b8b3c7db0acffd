"""Input files: which format each is, how to open it (gzip transparently), what its name says.

The format comes from the extension (after an optional `.gz`); when the extension is unknown
(or `.txt`) the first bytes are sniffed. Compression is found by the gzip magic number and
the encoding by the byte-order mark or the zero bytes of UTF-16. A name like
`colm2025.json.gz` gives the venue ("COLM"), year (2025) and collection ("COLM 2025") of
records that do not carry their own.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO

from kg.errors import InputError

_GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 4096
STDIN = "-"


class Format(StrEnum):
    """The input formats `read_papers` understands (the syntax; `kg.ingest.tables` reads what
    the records of each source mean)."""

    TEXT = "text"
    JSON = "json"  # one JSON document, or JSON Lines in a .json file (told apart by content)
    JSONL = "jsonl"
    CSV = "csv"
    TSV = "tsv"
    BIBTEX = "bibtex"
    RIS = "ris"
    ATOM = "atom"  # the arXiv API's Atom feed
    NBIB = "nbib"  # PubMed / MEDLINE


_BY_EXTENSION = {
    ".txt": Format.TEXT,
    ".json": Format.JSON,
    ".jsonl": Format.JSONL,
    ".ndjson": Format.JSONL,
    ".csv": Format.CSV,
    ".tsv": Format.TSV,
    ".bib": Format.BIBTEX,
    ".ris": Format.RIS,
    ".atom": Format.ATOM,
    ".xml": Format.ATOM,
    ".nbib": Format.NBIB,
    ".medline": Format.NBIB,
}
SUPPORTED = ", ".join(_BY_EXTENSION) + " (each optionally .gz)"

# Venue names that are not simply the upper-cased file-name prefix.
_VENUE_NAMES = {"automl": "AutoML", "corl": "CoRL", "nips": "NeurIPS", "neurips": "NeurIPS"}
# "colm2025", "3dv2025": a name, then a four-digit year, and nothing else.
_VENUE_YEAR = re.compile(r"([a-z0-9]*[a-z])[-_]?((?:19|20)\d\d)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Source:
    """One input file: the path as given, its format and what its name says."""

    path: str
    format: Format
    gzipped: bool
    # The file name without `.gz` and the format extension ("colm2025").
    stem: str
    venue: str | None = None
    year: int | None = None
    # "utf-8" (a byte-order mark is skipped), or the UTF-16/32 codec the file is decoded from.
    encoding: str = "utf-8"
    # The CSV cell separator ("," or ";" as spreadsheet programs in many locales write).
    delimiter: str = ","

    @property
    def collection(self) -> str:
        """The collection its records belong to unless they say otherwise ("COLM 2025")."""
        if self.venue and self.year:
            return f"{self.venue} {self.year}"
        return self.stem

    def describe(self) -> str:
        """The format as messages name it ("csv (UTF-16-LE, ';'-separated)")."""
        notes = []
        if self.encoding != "utf-8":
            notes.append(self.encoding.upper())
        if self.format is Format.CSV and self.delimiter != ",":
            notes.append(f"{self.delimiter!r}-separated")
        if self.gzipped:
            notes.append("gzipped")
        return f"{self.format.value} ({', '.join(notes)})" if notes else self.format.value

    def open(self) -> BinaryIO:
        """The file's bytes as UTF-8, decompressed when gzipped."""
        stream: BinaryIO
        try:
            # The caller closes the stream (`with source.open() as stream`).
            stream = _stdin() if self.path == STDIN else open(self.path, "rb")  # noqa: SIM115
            if self.gzipped:
                stream = gzip.open(stream, "rb")  # type: ignore[assignment]  # noqa: SIM115
        except OSError as exc:
            reason = f"cannot open the file ({exc.strerror or exc}); check its permissions"
            raise InputError(reason, source=self.path) from exc
        if self.encoding != "utf-8":
            return io.BufferedReader(_Transcoded(stream, self.encoding))  # type: ignore[return-value]
        return stream


_stdin_stream: BinaryIO | None = None


def _stdin() -> BinaryIO:
    """Standard input, with the bytes already looked at by `inspect` put back in front."""
    global _stdin_stream
    if _stdin_stream is None:
        _stdin_stream = _Replay(b"", sys.stdin.buffer)
    return _stdin_stream


class _Replay(io.BufferedReader):
    """A stream whose first bytes were read already (to sniff a pipe) and are read again."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        super().__init__(_Chain(head, rest))  # type: ignore[arg-type]


class _Chain(io.RawIOBase):
    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _Transcoded(io.RawIOBase):
    """A UTF-16/32 byte stream read as UTF-8 bytes (undecodable units become U+FFFD)."""

    def __init__(self, raw: BinaryIO, encoding: str) -> None:
        self._text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = self._text.read(65536)
            if not chunk:
                return 0
            self._pending = chunk.encode("utf-8", "surrogatepass")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def detect_encoding(head: bytes) -> str:
    """UTF-8 unless a byte-order mark or the pattern of zero bytes says UTF-16/32.

    >>> detect_encoding("id,title".encode("utf-16-le")), detect_encoding(b"id,title")
    ('utf-16-le', 'utf-8')
    >>> detect_encoding("title".encode("utf-16")), detect_encoding("ab".encode("utf-16-be"))
    ('utf-16', 'utf-16-be')
    """
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = head[:1024]
    if len(sample) >= 4 and b"\x00" in sample:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.1 * len(even):
            return "utf-16-le"
        if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.1 * len(odd):
            return "utf-16-be"
    return "utf-8"


def expand(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The input files: each path as given, a directory as its supported files (sorted,
    recursively, hidden ones left out). Raises `InputError` for a directory without any."""
    files: list[str] = []
    for path in paths:
        name = os.fspath(path)
        if name != STDIN and os.path.isdir(name):
            found = sorted(
                str(p) for p in Path(name).rglob("*")
                if p.is_file() and _known_extension(p.name)
                and not any(part.startswith(".") for part in p.relative_to(name).parts)
            )  # fmt: skip
            if not found:
                raise InputError(f"the directory holds no file of a known format ({SUPPORTED})",
                                 source=name)  # fmt: skip
            files.extend(found)
        else:
            files.append(name)
    return files


def _known_extension(name: str) -> bool:
    base = name[:-3] if name.lower().endswith(".gz") else name
    return os.path.splitext(base)[1].lower() in _BY_EXTENSION


def inspect(path: str | os.PathLike[str], fmt: Format | None = None) -> Source:
    """Check that `path` is a readable file of a known format and describe it.

    `fmt` overrides detection (it is needed only for standard input, `-`, when its content
    does not say). Raises `InputError` naming the file and the fix when it is missing, not a
    file, unreadable, or of an unknown format.
    """
    name = os.fspath(path)
    if name == STDIN:
        head = sys.stdin.buffer.read(_SNIFF_BYTES)
        global _stdin_stream
        _stdin_stream = _Replay(head, sys.stdin.buffer)
        p = Path("stdin")
    else:
        p = Path(name)
        _check_file(p, name)
        try:
            with open(p, "rb") as fh:
                head = fh.read(_SNIFF_BYTES)
        except OSError as exc:
            raise InputError(
                f"cannot read the file ({exc.strerror or exc}); check its permissions", source=name
            ) from exc

    gzipped = head.startswith(_GZIP_MAGIC)
    if gzipped:
        head = _gunzip_head(head, name)
    encoding = detect_encoding(head)
    text = _as_utf8(head, encoding)
    base = p.name[:-3] if p.name.lower().endswith(".gz") else p.name
    stem, ext = os.path.splitext(base)
    found = fmt or _BY_EXTENSION.get(ext.lower())
    if found is None:
        stem = base
    if found in (None, Format.TEXT):
        # PubMed and some RIS exports are saved as .txt: their content says what they are.
        guessed = sniff(text)
        found = guessed if guessed is not None and guessed is not Format.TSV else found
    if found is None:
        hint = " (it looks like UTF-16 text)" if encoding != "utf-8" else ""
        raise InputError(
            f"unknown input format{hint}; use one of {SUPPORTED}, or rename the file to the "
            "extension of its format (for standard input: --input-format)",
            source=name,
        )
    delimiter = _delimiter(text) if found is Format.CSV else ","
    venue, year = venue_year(stem)
    return Source(name, found, gzipped, stem, venue, year, encoding, delimiter)


def _check_file(p: Path, name: str) -> None:
    if not p.exists():
        if os.path.lexists(p):
            try:
                os.stat(p)
            except OSError as exc:
                raise InputError(
                    f"is a symbolic link that cannot be followed ({exc.strerror}); "
                    "point it at a file", source=name,
                ) from exc  # fmt: skip
        raise InputError("no such file; check the path", source=name)
    if not p.is_file():
        raise InputError(
            "is not a file; pass files or a directory of them (e.g. DIR/*.json.gz)", source=name
        )


def _gunzip_head(head: bytes, name: str) -> bytes:
    try:
        return gzip.GzipFile(fileobj=io.BytesIO(head)).read(_SNIFF_BYTES)
    except EOFError:  # the head is only the first part of the compressed stream
        decompressor = zlib.decompressobj(wbits=31)
        return decompressor.decompress(head, _SNIFF_BYTES)
    except (OSError, zlib.error) as exc:
        raise InputError(f"cannot decompress the file ({exc})", source=name) from exc


def _as_utf8(head: bytes, encoding: str) -> bytes:
    if encoding == "utf-8":
        return head
    return head.decode(encoding, errors="replace").encode("utf-8")


def _delimiter(head: bytes) -> str:
    """ "," unless the header row holds semicolons and no commas (spreadsheet CSV)."""
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    return ";" if first.count(b";") > first.count(b",") else ","


def sniff(head: bytes) -> Format | None:
    """Guess the format from the first bytes of a file with an unknown extension.

    Plain text is never guessed (any file is text): it needs the `.txt` extension.

    >>> sniff(b'[{"title": "A"}]'), sniff(b'{"title": "A"}\\n{"title": "B"}\\n')
    (<Format.JSON: 'json'>, <Format.JSON: 'json'>)
    >>> sniff(b"% refs\\n@inproceedings{k,\\n title={A}}"), sniff(b"id\\ttitle\\tabstract\\n")
    (<Format.BIBTEX: 'bibtex'>, <Format.TSV: 'tsv'>)
    >>> sniff(b"TY  - JOUR\\nTI  - A\\nER  - \\n"), sniff(b"PMID- 1\\nTI  - A\\n")
    (<Format.RIS: 'ris'>, <Format.NBIB: 'nbib'>)
    >>> sniff(b"Just some words.") is None
    True
    """
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith((b"[", b"{")):
        return Format.JSON
    if text.startswith(b"<") and b"<feed" in text:
        return Format.ATOM
    if re.search(rb"(?m)^TY  - ", text):
        return Format.RIS
    if re.search(rb"(?m)^PMID- ", text):
        return Format.NBIB
    if re.search(rb"(?m)^\s*@\w+\s*[{(]", text):
        return Format.BIBTEX
    first = text.split(b"\n", 1)[0].lower()
    fields = {f.strip(b'" \r') for f in re.split(rb"[\t,;]", first)}
    if fields & {b"title", b"abstract", b"abstract note"}:
        return Format.TSV if b"\t" in first else Format.CSV
    return None


def venue_year(stem: str) -> tuple[str | None, int | None]:
    """Venue and year from a file name like `colm2025` (None, None when it has no such shape).

    >>> venue_year("colm2025"), venue_year("3dv2025"), venue_year("nips2016")
    (('COLM', 2025), ('3DV', 2025), ('NeurIPS', 2016))
    >>> venue_year("iclr2025_abstracts")
    (None, None)
    """
    match = _VENUE_YEAR.fullmatch(stem)
    if not match:
        return None, None
    name = match.group(1).lower()
    return _VENUE_NAMES.get(name, name.upper()), int(match.group(2))
