"""CSV and TSV with a header row of field names (`id`, `title`, `abstract`, ...)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import BinaryIO

from kg.ingest.records import WHOLE_FILE, RawRecord


class _Lines:
    """Decodes a byte stream line by line for `csv.reader`, remembering undecodable lines.

    Decoding per line (instead of wrapping the stream in a text decoder) lets one bad line
    spoil only the row it belongs to instead of stopping the whole file.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.line = 0
        self.bad: dict[int, str] = {}

    def __iter__(self) -> Iterator[str]:
        for raw in self._stream:
            self.line += 1
            try:
                yield raw.decode("utf-8-sig" if self.line == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                self.bad[self.line] = f"{exc.reason} at byte {exc.start} of line {self.line}"
                yield raw.decode("utf-8", errors="replace")


def read_csv(stream: BinaryIO, delimiter: str = ",") -> Iterator[RawRecord]:
    """The rows after the header as records; the record number is the row number (1-based).

    Empty cells are absent values; blank lines are not rows. A row with more cells than the
    header is bad; a header that is not valid UTF-8 makes the whole file (record 0) bad.
    """
    lines = _Lines(stream)
    reader = csv.reader(iter(lines), delimiter=delimiter)
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
    number = 0
    rows = iter(reader)
    while True:
        lines.bad.clear()
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            number += 1
            yield RawRecord(number, error=f"row cannot be parsed as CSV ({exc})")
            continue
        if not row:
            continue
        number += 1
        if lines.bad:
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
