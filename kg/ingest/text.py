"""Plain text: one abstract per paragraph (paragraphs are separated by blank lines).

A short first paragraph without sentence punctuation ("ICLR 2025 Papers") names the collection
and is not a paper. Paragraph numbers count the heading, so they match what a reader counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.records import RawRecord

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_HEADING_MAX_CHARS = 120


def is_heading(paragraph: str) -> bool:
    """True for a short one-line paragraph without sentence punctuation.

    >>> is_heading("ICLR 2025 Papers"), is_heading("We propose a model.")
    (True, False)
    """
    return (
        len(paragraph) <= _HEADING_MAX_CHARS
        and "\n" not in paragraph.strip()
        and not _SENTENCE_END.search(paragraph)
    )


def paragraphs(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(1-based number, raw bytes) of each paragraph, one at a time."""
    number = 0
    lines: list[bytes] = []
    for i, line in enumerate(stream):
        if i == 0:
            line = line.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark
        if line.strip():
            lines.append(line)
        elif lines:
            number += 1
            yield number, b"".join(lines)
            lines = []
    if lines:
        yield number + 1, b"".join(lines)


def read_text(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The paragraphs of a text file as records with an `abstract` (and `collection`)."""
    collection: str | None = None
    for number, raw in paragraphs(stream):
        if len(raw) > limits.max_record_bytes:
            yield RawRecord(number, error=limits.record_too_big(len(raw), "paragraph"))
            continue
        try:
            paragraph = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield RawRecord(
                number,
                error=f"paragraph is not valid UTF-8 ({exc.reason} at byte "
                f"{exc.start} of the paragraph)",
            )
            continue
        if number == 1 and is_heading(paragraph):
            collection = " ".join(paragraph.split())
            continue
        fields = {"abstract": paragraph}
        if collection:
            fields["collection"] = collection
        yield RawRecord(number, fields)
