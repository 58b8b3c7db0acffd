"""The input-size policy, the same for every format (`kg build --max-field-chars` etc.).

A record over a limit is skipped with a reason that names the limit; nothing is truncated
silently. Defaults are far above real metadata (the longest abstracts in the shared paper lists
are under 10,000 characters) and far below what makes extraction take minutes per record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How big one input may be; over a limit, the record (or file) is skipped, saying why."""

    # One text field after cleaning: title, abstract, venue, one author, one keyword.
    max_field_chars: int = 50_000
    # One record as stored: a JSON line, CSV row, BibTeX/RIS/MEDLINE entry, text paragraph.
    max_record_bytes: int = 16 * MIB
    # A file that must be parsed whole: a JSON document (not JSON Lines) or an Atom feed.
    max_document_bytes: int = 256 * MIB

    def record_too_big(self, size: int, what: str = "record") -> str:
        return (
            f"{what} has {size:,} bytes, over the limit of {self.max_record_bytes:,} "
            "(--max-record-mb)"
        )


DEFAULT_LIMITS = ReadLimits()


def bounded_lines(stream: BinaryIO, max_bytes: int) -> Iterator[bytes | int]:
    """The lines of `stream`; a line longer than `max_bytes` is yielded as its length instead
    (and never held in memory whole)."""
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        if len(line) <= max_bytes or line.endswith(b"\n"):
            yield line
            continue
        size = len(line)
        while line and not line.endswith(b"\n"):
            line = stream.readline(MIB)
            size += len(line)
        yield size
