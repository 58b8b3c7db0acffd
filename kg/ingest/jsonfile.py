"""JSON documents (a list of records, one record, or an API response wrapping the list) and
JSON Lines (one record per line), told apart by content, not by the file name.

A `.json` file whose first line is a complete JSON object followed by more lines is JSON Lines
(the arXiv metadata snapshot, OpenAlex and Semantic Scholar dataset files): it is read one line
at a time, in constant memory. Anything else is one document, parsed whole (API responses and
reference-manager exports are small; `ReadLimits.max_document_bytes` bounds it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from kg.ingest.limits import DEFAULT_LIMITS, MIB, ReadLimits, bounded_lines
from kg.ingest.records import WHOLE_FILE, RawRecord

# Keys under which API responses wrap their list of records: OpenAlex {"meta", "results"},
# Semantic Scholar {"total", "next", "data"}, OpenReview {"notes", "count"}, CSL/Zotero
# "items", others "papers"/"records"/"entries".
WRAPPER_KEYS = ("results", "data", "papers", "items", "notes", "records", "entries")
# A wrapper is an object with one of those lists and no paper fields of its own.
_PAPER_KEYS = frozenset({"title", "abstract", "display_name", "content"})


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )


def _record(number: int, value: Any) -> RawRecord:
    if isinstance(value, dict):
        return RawRecord(number, value)
    hint = " (an API returns null for an id it does not know)" if value is None else ""
    return RawRecord(number, error=f"record is {_kind(value)}, expected an object{hint}")


def unwrap(value: Any) -> tuple[list[Any] | None, str | None]:
    """The records of a parsed document and, for a wrapper, the key they were under.

    >>> unwrap([{"title": "A"}]), unwrap({"meta": {}, "results": [{"id": 1}]})
    (([{'title': 'A'}], None), ([{'id': 1}], 'results'))
    >>> unwrap({"title": "One work"}), unwrap("text")
    (([{'title': 'One work'}], None), (None, None))
    """
    if isinstance(value, list):
        return value, None
    if not isinstance(value, dict):
        return None, None
    if not _PAPER_KEYS & value.keys():
        for key in WRAPPER_KEYS:
            if isinstance(value.get(key), list):
                return value[key], key
    return [value], None


def _loads(data: bytes | str) -> Any:
    return json.loads(data)


def _decode_error(exc: Exception, where: str) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"{where} is not valid UTF-8 ({exc.reason} at byte {exc.start})"
    if isinstance(exc, RecursionError):
        return f"{where} is nested too deeply to read (arrays or objects thousands deep)"
    assert isinstance(exc, json.JSONDecodeError)
    return f"{where} is not valid JSON ({_at(exc.msg)} line {exc.lineno} column {exc.colno})"


def _at(message: str) -> str:
    """json's message followed by "at" ("Unterminated string starting at" has its own)."""
    return message if message.endswith(" at") else message + " at"


def read_json(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The records of a JSON document, or of JSON Lines when the file holds those."""
    first = stream.readline(min(limits.max_record_bytes, limits.max_document_bytes) + 1)
    second = stream.readline(MIB) if first.endswith(b"\n") else b""
    while second and not second.strip():
        second = stream.readline(MIB)
    if second.lstrip().startswith(b"{") and _is_object(first):
        yield from read_jsonl(_Prepended([first, second], stream), limits)
        return
    rest = stream.read(limits.max_document_bytes + 1 - len(first) - len(second))
    data = first + second + rest
    if len(data) > limits.max_document_bytes:
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: a JSON document over the limit of "
            f"{limits.max_document_bytes:,} bytes (--max-document-mb); JSON Lines (one record "
            "per line) are read in constant memory at any size",
        )
        return
    try:
        value = _loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        reason = _decode_error(exc, "it").removeprefix("it is ")
        yield RawRecord(WHOLE_FILE, error="the whole file is skipped: " + reason)
        return
    records, _ = unwrap(value)
    if records is None:
        yield RawRecord(
            WHOLE_FILE,
            error=f"the whole file is skipped: the top-level value is {_kind(value)}, expected "
            "a list of records, one record, or an object wrapping them under "
            + "/".join(repr(k) for k in WRAPPER_KEYS),
        )
        return
    for number, item in enumerate(records, 1):
        yield _record(number, item)


def _is_object(line: bytes) -> bool:
    try:
        return isinstance(_loads(line.decode("utf-8-sig")), dict)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False


class _Prepended:
    """Lines already read, then the rest of the stream (for `bounded_lines`)."""

    def __init__(self, lines: list[bytes], stream: BinaryIO) -> None:
        self._lines = lines
        self._stream = stream

    def readline(self, size: int = -1) -> bytes:
        if self._lines:
            return self._lines.pop(0)
        return self._stream.readline(size)


def read_jsonl(stream: Any, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The records of a JSON Lines file, one line at a time.

    The record number is the line number (blank lines are not records but are counted, so that
    the number points at the line in an editor).
    """
    for number, line in enumerate(bounded_lines(stream, limits.max_record_bytes), 1):
        if isinstance(line, int):
            yield RawRecord(number, error=limits.record_too_big(line, "line"))
            continue
        if not line.strip():
            continue
        try:
            value = _loads(line.decode("utf-8-sig" if number == 1 else "utf-8"))
        except UnicodeDecodeError as exc:
            yield RawRecord(
                number,
                error=f"line is not valid UTF-8 ({exc.reason} at byte {exc.start} of the line)",
            )
            continue
        except json.JSONDecodeError as exc:
            yield RawRecord(
                number, error=f"line is not valid JSON ({_at(exc.msg)} column {exc.colno})"
            )
            continue
        except RecursionError as exc:
            yield RawRecord(number, error=_decode_error(exc, "line"))
            continue
        yield _record(number, value)
