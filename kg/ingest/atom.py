"""The arXiv API's Atom feed (export.arxiv.org/api/query), read entry by entry with the
standard library's incremental XML parser (expat refuses external entities and, since expat
2.4, entity-expansion bombs)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, BinaryIO

from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.mapping import MARKER
from kg.ingest.records import WHOLE_FILE, RawRecord

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


class _Counted:
    """A stream that stops with an error past `limit` bytes."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self._stream = stream
        self.left = limit

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size if size >= 0 else 1 << 20)
        self.left -= len(data)
        if self.left < 0:
            raise _TooBig
        return data


class _TooBig(Exception):
    pass


def _entry(element: ET.Element) -> dict[str, Any]:
    def text(tag: str) -> str | None:
        found = element.find(tag)
        return found.text if found is not None and found.text else None

    links = {link.get("title") or link.get("rel"): link.get("href")
             for link in element.findall(f"{ATOM}link")}
    return {
        MARKER: "arxiv-atom",
        "id": text(f"{ATOM}id"),
        "title": text(f"{ATOM}title"),
        "summary": text(f"{ATOM}summary"),
        "published": text(f"{ATOM}published"),
        "authors": [name.text for name in element.findall(f"{ATOM}author/{ATOM}name")
                    if name.text],
        "doi": text(f"{ARXIV}doi"),
        "journal_ref": text(f"{ARXIV}journal_ref"),
        "categories": [cat.get("term") for cat in element.findall(f"{ATOM}category")
                       if cat.get("term")],
        "alternate": links.get("alternate"),
        "pdf": links.get("pdf"),
    }


def read_atom(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The `<entry>` elements of an Atom feed as records (marked as arXiv Atom)."""
    number = 0
    counted = _Counted(stream, limits.max_document_bytes)
    try:
        for _, element in ET.iterparse(counted, events=("end",)):  # type: ignore[arg-type]
            if element.tag != f"{ATOM}entry":
                continue
            number += 1
            entry = _entry(element)
            element.clear()
            if entry["id"] is None and entry["title"] is None:
                # The API reports an error as an entry without an id ("Error" title).
                yield RawRecord(number, error="entry has no id and no title")
                continue
            yield RawRecord(number, entry)
    except ET.ParseError as exc:
        yield RawRecord(WHOLE_FILE, error=f"the rest of the file is skipped: not valid XML ({exc})")
    except _TooBig:
        yield RawRecord(
            WHOLE_FILE,
            error=f"the rest of the file is skipped: over the limit of "
            f"{limits.max_document_bytes:,} bytes (--max-document-mb)",
        )
