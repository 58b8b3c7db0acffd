"""One record (a mapping of field names to values, from any format) -> `Paper`.

Every format reader yields `RawRecord`s; `to_paper` checks the known fields' types, cleans the
text, splits keyword/author lists, collects links and keeps every other field in `extra`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kg.ingest.clean import clean_optional, clean_text, split_list, unique
from kg.ingest.ids import paper_id
from kg.ingest.sources import Source
from kg.types import Paper


class BadRecord(ValueError):
    """A record that cannot be a paper; the message is the reason."""


# Record number of a bad record that is the whole file (e.g. a broken top-level JSON list).
WHOLE_FILE = 0


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A record as a reader found it: its 1-based number and its fields, or why it is bad."""

    number: int
    fields: Mapping[str, Any] | None = None
    error: str | None = None


# Fields whose values are links to the paper's own resources (-> `Paper.links`). Per-author
# links (homepage, dblp, orcid, ...) and review/citation pages stay in `extra`.
LINK_FIELDS = frozenset(
    ["url", "site", "github", "code", "project", "pdf", "arxiv", "openreview", "supp", "oa", "doi"]
)
_TEXT_FIELDS = ("title", "abstract", "venue", "status", "collection")
_LIST_FIELDS = {
    "keywords": "keywords",
    "keyword": "keywords",
    "authors": "authors",
    "author": "authors",
}
_KNOWN = frozenset({"id", "year", "keywords", "authors", *_TEXT_FIELDS})

# New-style ("1802.09232v2") and old-style ("math.PR/0601001") arXiv ids.
_ARXIV_ID = re.compile(
    r"(?:arxiv:\s*)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[a-z]{2})?/\d{7}(?:v\d+)?)", re.IGNORECASE
)
_DOI = re.compile(r"(?:doi:\s*)?(10\.\d{4,9}/\S+)", re.IGNORECASE)
_HOST = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.IGNORECASE)
# Endings that make "paper.pdf" a file name, not a host.
_FILE_ENDINGS = frozenset(["pdf", "zip", "htm", "html", "txt", "md", "py", "json", "gz", "tar"])
_MARKDOWN_TARGET = re.compile(r"\]\((https?://[^)\s]+)\)")


def to_paper(
    fields: Mapping[str, Any],
    *,
    source: Source,
    record: int,
    list_separators: str = ";",
) -> Paper:
    """The paper a record describes; raises `BadRecord` (with the reason) when it cannot be one.

    Field names match case-insensitively; `list_separators` splits keywords and authors given
    as one string.
    """
    values: dict[str, Any] = {}
    links: list[str] = []
    extra: list[tuple[str, str]] = []
    for key, value in fields.items():
        name = str(key).strip().lower()
        canonical = _LIST_FIELDS.get(name, name)
        if canonical in _KNOWN and canonical not in values:
            is_list = name in _LIST_FIELDS
            values[canonical] = _as_list(name, value, list_separators) if is_list else value
        elif name in LINK_FIELDS:
            found, rest = _links(name, value)
            links.extend(found)
            if name in ("url", "site") and found and "url" not in values:
                values["url"] = found[0]
            if rest is not None:
                extra.append((str(key), rest))
        else:
            extra.append((str(key), _stringify(value)))

    text = {name: _as_text(name, values.get(name)) for name in _TEXT_FIELDS}
    record_id = _as_id(values.get("id"))
    pid = paper_id(record_id, text["abstract"], text["title"])
    if pid is None:
        raise BadRecord("empty record: no id, no title and no abstract")
    year = _as_year(values.get("year"))
    return Paper(
        id=pid,
        abstract=text["abstract"],
        title=text["title"],
        keywords=tuple(values.get("keywords", ())),
        authors=tuple(values.get("authors", ())),
        year=year if year is not None else source.year,
        venue=text["venue"] or source.venue,
        url=values.get("url"),
        status=text["status"],
        collection=text["collection"] or source.collection,
        source=source.path,
        record=record,
        links=tuple(unique(links)),
        extra=tuple(extra),
    )


def _kind(value: Any) -> str:
    """How a wrong value is named in a reason: 'a number', 'an object', ..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def _as_text(name: str, value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return clean_optional(value)
    raise BadRecord(f"field {name!r} is {_kind(value)}, expected text")


def _as_list(name: str, value: Any, separators: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return split_list(value, separators)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return unique(clean_text(item) for item in value)
    raise BadRecord(
        f"field {name!r} is {_kind(value)}, expected a list of text or one "
        f"{' or '.join(repr(s) for s in separators)}-separated text"
    )


def _as_id(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise BadRecord(f"field 'id' is {_kind(value)}, expected text or an integer")


def _as_year(value: Any) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    shown = repr(value) if isinstance(value, str) else _kind(value)
    raise BadRecord(f"field 'year' is {shown}, expected a year like 2025")


def _links(name: str, value: Any) -> tuple[list[str], str | None]:
    """The links in one link field, and what is left that is not a link (for `extra`)."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        parts = value
    elif isinstance(value, str):
        parts = value.split(";")
    else:
        return [], _stringify(value)
    found: list[str] = []
    rest: list[str] = []
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if link := as_link(name, part):
            found.append(link)
            continue
        # Markdown badges ("[![github](/icon.svg) org/repo](https://github.com/org/repo)"):
        # the targets are links, the whole text is kept too (it says more, e.g. "3 community
        # implementations").
        found.extend(_MARKDOWN_TARGET.findall(part))
        rest.append(part)
    return found, ";".join(rest) if rest else None


def as_link(name: str, value: str) -> str | None:
    """An absolute URL for one value of link field `name`, or None when it is not a link.

    >>> as_link("arxiv", "arXiv:1802.09232"), as_link("doi", "10.1609/aaai.v36i1.19922")
    ('https://arxiv.org/abs/1802.09232', 'https://doi.org/10.1609/aaai.v36i1.19922')
    >>> as_link("github", "github.com/org/repo"), as_link("supp", "/attachment/x.pdf")
    ('https://github.com/org/repo', None)
    """
    if value.startswith(("https://", "http://")):
        return value
    if name == "arxiv" and (match := _ARXIV_ID.fullmatch(value)):
        return f"https://arxiv.org/abs/{match.group(1)}"
    if name == "doi" and (match := _DOI.fullmatch(value)):
        return f"https://doi.org/{match.group(1)}"
    if _is_schemeless_url(value):
        return f"https://{value}"
    return None


def _is_schemeless_url(value: str) -> bool:
    """ "github.com/org/repo", "www.lab.org", "adni.loni.usc.edu" (but not "paper.pdf").

    A host alone needs "www." or two dots, to tell it from a file name.
    """
    host, slash, _ = value.partition("/")
    if not _HOST.fullmatch(host) or host.rpartition(".")[2].lower() in _FILE_ENDINGS:
        return False
    return bool(slash) or host.lower().startswith("www.") or host.count(".") >= 2


def _stringify(value: Any) -> str:
    """A field value for `Paper.extra`: text as is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if type(value) in (int, float):  # as json.dumps() (but NaN -> "nan"), 5x faster
        return str(value)
    return json.dumps(value, ensure_ascii=False)
