"""CSV and TSV with a header row of field names (`id`, `title`, `abstract`, ...; Zotero's
"Key", "Title", "Abstract Note", ... — `kg.ingest.tables` maps known headers).

CSV follows RFC 4180 quoting (cells may hold quoted line breaks); TSV has no quoting at all (a
tab or line break cannot be in a cell, and quotes are text), as spreadsheet and database tools
write it. A quote that is never closed would swallow every following row into one cell: such a
row is reported and the lines it swallowed are read again as rows.
"""

from __future__ import annotations

import csv
from collections import deque
from collections.abc import Iterator
from typing import BinaryIO

from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.records import WHOLE_FILE, RawRecord, names_a_paper


class _Lines:
    """Decodes a byte stream line by line for `csv.reader`, remembering undecodable lines and
    the lines of the current row (so that a row that swallowed others can be re-read).

    Decoding per line (instead of wrapping the stream in a text decoder) lets one bad line
    spoil only the row it belongs to instead of stopping the whole file.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._again: deque[tuple[int, str]] = deque()
        self.line = 0
        self.bad: dict[int, str] = {}
        self.row: list[tuple[int, str]] = []

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._again:
            self.line, text = self._again.popleft()
            self.row.append((self.line, text))
            return text
        raw = self._stream.readline()
        if not raw:
            raise StopIteration
        self.line += 1
        try:
            text = raw.decode("utf-8-sig" if self.line == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            self.bad[self.line] = f"{exc.reason} at byte {exc.start} of line {self.line}"
            text = raw.decode("utf-8", errors="replace")
        self.row.append((self.line, text))
        return text

    def read_again(self, lines: list[tuple[int, str]]) -> None:
        """Put lines back to be read before the rest of the stream."""
        self._again.extendleft(reversed(lines))


def read_csv(
    stream: BinaryIO, delimiter: str = ",", limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[RawRecord]:
    """The rows after the header as records; the record number is the row number (1-based).

    Empty cells are absent values; blank lines are not rows. A row with more cells than the
    header is bad; a header that is not valid UTF-8 makes the whole file (record 0) bad.
    """
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_record_bytes))
    lines = _Lines(stream)
    if delimiter == "\t":
        reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        return
    except csv.Error as exc:
        yield RawRecord(WHOLE_FILE, error=f"the whole file is skipped: bad header row ({exc})")
        return
    if lines.bad:
        reason = next(iter(lines.bad.values()))
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: the header row is not valid UTF-8 ({reason})",
        )
        return
    if len(header) == 1 and delimiter == ",":
        hint = _one_column_hint(header[0])
        if hint:
            yield RawRecord(WHOLE_FILE, error=f"the whole file is skipped: {hint}")
            return
    if not names_a_paper(header):
        shown = ", ".join(header[:6]) + (", ..." if len(header) > 6 else "")
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: no column of its header ({shown}) holds an id, "
            "a title or an abstract",
        )
        return
    number = 0
    while True:
        lines.bad.clear()
        lines.row = []
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            number += 1
            yield RawRecord(number, error=f"row cannot be parsed as CSV ({exc})")
            continue
        if not row:
            continue
        number += 1
        swallowed = _swallowed(lines.row, row, len(header), delimiter)
        if swallowed:
            first_line = lines.row[0][0]
            yield RawRecord(
                number,
                error=f"row starting at line {first_line} has a quote (\") that is never closed "
                f"and would swallow the {len(swallowed)} lines after it; those lines are read "
                "again as rows",
            )
            lines.read_again(swallowed)
            continue
        size = sum(len(cell) for cell in row)
        if size > limits.max_record_bytes:
            yield RawRecord(number, error=limits.record_too_big(size, "row"))
        elif lines.bad:
            reason = next(iter(lines.bad.values()))
            yield RawRecord(number, error=f"row is not valid UTF-8 ({reason})")
        elif len(row) > len(header):
            yield RawRecord(
                number, error=f"row has {len(row)} cells but the header has {len(header)}"
            )
        else:
            yield RawRecord(
                number,
                {name: cell for name, cell in zip(header, row, strict=False) if cell.strip()},
            )


def _swallowed(
    physical: list[tuple[int, str]], row: list[str], columns: int, delimiter: str
) -> list[tuple[int, str]]:
    """The lines after the first of a multi-line row that are rows of their own (an unclosed
    quote), else []. A quoted line break inside an abstract is not that: the lines it joins do
    not each hold a full row's separators, or the row has the cells the header promises."""
    if len(physical) < 2 or delimiter == "\t":
        return []
    rest = physical[1:]
    if _quote_never_closed(physical):  # the reader ran to the end of the file inside a quote
        return rest
    row_like = sum(1 for _, text in rest if text.count(delimiter) >= columns - 1)
    return rest if columns >= 2 and len(row) < columns and row_like >= 1 else []


def _quote_never_closed(physical: list[tuple[int, str]]) -> bool:
    """True when the row's quotes are unbalanced up to its last line (EOF inside a quote)."""
    return sum(text.count('"') for _, text in physical) % 2 == 1


def _one_column_hint(name: str) -> str | None:
    """Why a header with one column is probably not what the user meant."""
    if "\t" in name:
        return "the header has one column holding tabs; name the file .tsv"
    return None
