"""RIS (the default export of Zotero, Mendeley and EndNote), parsed by `rispy` one entry at a
time; MEDLINE/PubMed `.nbib` (same tag-per-line idea, different tags), parsed here.

Entries are split here (at `TY  -` ... `ER  -`, or at blank lines for MEDLINE) so that each
gets its number and a broken entry, or one over the size limit, spoils only itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.mapping import MARKER
from kg.ingest.records import RawRecord

_RIS_START = re.compile(rb"^\s*TY  - ")
_RIS_END = re.compile(rb"^\s*ER  -")
_MEDLINE_TAG = re.compile(r"^([A-Z][A-Z0-9]{0,3})\s*- ?(.*)$")


def _entries(stream: BinaryIO, start: re.Pattern[bytes] | None, end: re.Pattern[bytes] | None,
             limits: ReadLimits) -> Iterator[tuple[int, bytes | int | str]]:  # fmt: skip
    """(entry number, raw bytes) of each entry; instead of the bytes, the size of an entry over
    the limit, or (as text) why lines outside any entry are not one.

    With `start`/`end` patterns an entry runs from a start line to an end line; without them,
    entries are separated by blank lines.
    """
    number, size, inside = 0, 0, False
    lines: list[bytes] = []
    stray: list[int] = []  # line numbers of non-blank lines outside any entry

    def entry() -> bytes | int:
        return b"".join(lines) if size <= limits.max_record_bytes else size

    for line_number, line in enumerate(stream, 1):
        if start is None:
            opening = not inside and bool(line.strip())
            closing = inside and not line.strip()
        else:
            opening = bool(start.match(line))
            closing = inside and bool(end and end.match(line))
        if opening:
            if stray:
                number += 1
                yield number, _stray(stray)
                stray = []
            if inside:  # a new entry without the end of the last one
                number += 1
                yield number, entry()
            inside, size, lines = True, 0, []
        if inside:
            size += len(line)
            if size <= limits.max_record_bytes:
                lines.append(line)
        elif line.strip():
            stray.append(line_number)
        if closing:
            number += 1
            yield number, entry()
            inside = False
    if inside:
        number += 1
        yield number, entry()
    if stray:
        yield number + 1, _stray(stray)


def _stray(lines: list[int]) -> str:
    return (f"lines {lines[0]}-{lines[-1]} are outside any entry (an entry starts with "
            "'TY  - '); they are not read")  # fmt: skip


def read_ris(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The entries of a RIS file as records (rispy's field names, marked as RIS)."""
    from rispy import RisParser

    parser = RisParser()
    for number, raw in _entries(stream, _RIS_START, _RIS_END, limits):
        if isinstance(raw, str):
            yield RawRecord(number, error=raw)
            continue
        if isinstance(raw, int):
            yield RawRecord(number, error=limits.record_too_big(raw, "entry"))
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            yield RawRecord(number, error=f"entry is not valid UTF-8 ({exc.reason})")
            continue
        if not _RIS_END.search(raw.rstrip().rsplit(b"\n", 1)[-1]):
            text += "\nER  - \n"  # the last entry of a truncated file
        try:
            entries = parser.parse(text.replace("\r\n", "\n"))
        except (KeyError, ValueError, IndexError) as exc:
            yield RawRecord(number, error=f"entry cannot be parsed as RIS ({exc})")
            continue
        if not entries:
            yield RawRecord(number, error="entry cannot be parsed as RIS (no TY line)")
            continue
        yield RawRecord(number, {MARKER: "ris", **entries[0]})


def read_medline(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The citations of a MEDLINE (.nbib) file as records of their tags (lists of values)."""
    for number, raw in _entries(stream, None, None, limits):
        if isinstance(raw, str):
            yield RawRecord(number, error=raw)
            continue
        if isinstance(raw, int):
            yield RawRecord(number, error=limits.record_too_big(raw, "citation"))
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            yield RawRecord(number, error=f"citation is not valid UTF-8 ({exc.reason})")
            continue
        fields: dict[str, Any] = {MARKER: "medline"}
        last: list[str] | None = None
        for line in text.splitlines():
            if line.startswith("      ") and last is not None:  # a continuation line
                last[-1] += " " + line.strip()
                continue
            match = _MEDLINE_TAG.match(line)
            if match:
                last = fields.setdefault(match.group(1), [])
                last.append(match.group(2).strip())
        if len(fields) == 1:
            yield RawRecord(number, error="citation has no MEDLINE tags (lines like 'TI  - …')")
            continue
        yield RawRecord(number, fields)
