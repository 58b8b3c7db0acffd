"""Input files: which format each is, how to open it (gzip transparently), what its name says.

The format comes from the extension (after an optional `.gz`); when the extension is unknown
the first bytes are sniffed. A name like `colm2025.json.gz` gives the venue ("COLM"), year
(2025) and collection ("COLM 2025") of records that do not carry their own.
"""

from __future__ import annotations

import gzip
import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from kg.errors import InputError

_GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 4096


class Format(StrEnum):
    """The input formats `read_papers` understands."""

    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    CSV = "csv"
    TSV = "tsv"
    BIBTEX = "bibtex"


_BY_EXTENSION = {
    ".txt": Format.TEXT,
    ".json": Format.JSON,
    ".jsonl": Format.JSONL,
    ".ndjson": Format.JSONL,
    ".csv": Format.CSV,
    ".tsv": Format.TSV,
    ".bib": Format.BIBTEX,
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

    @property
    def collection(self) -> str:
        """The collection its records belong to unless they say otherwise ("COLM 2025")."""
        if self.venue and self.year:
            return f"{self.venue} {self.year}"
        return self.stem

    def open(self) -> BinaryIO:
        """The file's bytes, decompressed when gzipped."""
        try:
            if self.gzipped:
                return gzip.open(self.path, "rb")  # type: ignore[return-value]
            return open(self.path, "rb")
        except OSError as exc:
            reason = f"cannot open the file ({exc.strerror or exc}); check its permissions"
            raise InputError(reason, source=self.path) from exc


def inspect(path: str | os.PathLike[str]) -> Source:
    """Check that `path` is a readable file of a known format and describe it.

    Raises `InputError` naming the file and the fix when it is missing, not a file,
    unreadable, or of an unknown format.
    """
    name = os.fspath(path)
    p = Path(name)
    if not p.exists():
        raise InputError("no such file; check the path", source=name)
    if not p.is_file():
        raise InputError(
            "is not a file; pass the files themselves (e.g. DIR/*.json.gz)", source=name
        )
    try:
        with open(p, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError as exc:
        raise InputError(
            f"cannot read the file ({exc.strerror or exc}); check its permissions", source=name
        ) from exc

    gzipped = head.startswith(_GZIP_MAGIC)
    base = p.name[:-3] if p.name.lower().endswith(".gz") else p.name
    stem, ext = os.path.splitext(base)
    fmt = _BY_EXTENSION.get(ext.lower())
    if fmt is None:
        stem = base
        if gzipped:
            head = _gunzip_head(p, name)
        fmt = sniff(head)
    if fmt is None:
        raise InputError(
            f"unknown input format; use one of {SUPPORTED}, or rename the file to the "
            "extension of its format",
            source=name,
        )
    venue, year = venue_year(stem)
    return Source(name, fmt, gzipped, stem, venue, year)


def _gunzip_head(p: Path, name: str) -> bytes:
    try:
        with gzip.open(p, "rb") as fh:
            return fh.read(_SNIFF_BYTES)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot decompress the file ({exc})", source=name) from exc


def sniff(head: bytes) -> Format | None:
    """Guess the format from the first bytes of a file with an unknown extension.

    Plain text is never guessed (any file is text): it needs the `.txt` extension.

    >>> sniff(b'[{"title": "A"}]'), sniff(b'{"title": "A"}\\n{"title": "B"}\\n')
    (<Format.JSON: 'json'>, <Format.JSONL: 'jsonl'>)
    >>> sniff(b"% refs\\n@inproceedings{k,\\n title={A}}"), sniff(b"id\\ttitle\\tabstract\\n")
    (<Format.BIBTEX: 'bibtex'>, <Format.TSV: 'tsv'>)
    >>> sniff(b"Just some words.") is None
    True
    """
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"["):
        return Format.JSON
    if text.startswith(b"{"):
        return Format.JSONL
    if re.search(rb"(?m)^\s*@\w+\s*[{(]", text):
        return Format.BIBTEX
    first = text.split(b"\n", 1)[0].lower()
    fields = set(re.split(rb"[\t,]", first))
    if fields & {b"title", b"abstract"}:
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
