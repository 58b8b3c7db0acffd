"""JSON (a top-level list of records) and JSON Lines (one record per line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from kg.ingest.records import WHOLE_FILE, RawRecord


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )


def _record(number: int, value: Any) -> RawRecord:
    if isinstance(value, dict):
        return RawRecord(number, value)
    return RawRecord(number, error=f"record is {_kind(value)}, expected an object")


def read_json(stream: BinaryIO) -> Iterator[RawRecord]:
    """The records of a top-level JSON list.

    The list is parsed whole: the largest real inputs are a few MB, and a streaming parser
    (ijson) would be another dependency for no measurable gain. So a file that is not valid
    JSON, or not a list, is one bad record: the whole file (record number 0).
    """
    try:
        data = json.loads(stream.read().decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: not valid UTF-8 ({exc.reason} at byte {exc.start})",
        )
        return
    except json.JSONDecodeError as exc:
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: not valid JSON ({exc.msg} "
            f"at line {exc.lineno} column {exc.colno})",
        )
        return
    if not isinstance(data, list):
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: the top-level value is "
            f"{_kind(data)}, expected a list of records",
        )
        return
    for number, value in enumerate(data, 1):
        yield _record(number, value)


def read_jsonl(stream: BinaryIO) -> Iterator[RawRecord]:
    """The records of a JSON Lines file, one line at a time.

    The record number is the line number (blank lines are not records but are counted, so that
    the number points at the line in an editor).
    """
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line.decode("utf-8-sig" if number == 1 else "utf-8"))
        except UnicodeDecodeError as exc:
            yield RawRecord(
                number,
                error=f"line is not valid UTF-8 ({exc.reason} at byte {exc.start} of the line)",
            )
            continue
        except json.JSONDecodeError as exc:
            yield RawRecord(
                number, error=f"line is not valid JSON ({exc.msg} at column {exc.colno})"
            )
            continue
        yield _record(number, value)
