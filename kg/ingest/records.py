"""One record (a mapping of field names to values, from any format) -> `Paper`.

Every format reader yields `RawRecord`s; `to_paper` checks the known fields' types, cleans the
text, splits keyword/author lists, collects links and keeps every other field in `extra`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kg.ingest import convert
from kg.ingest.clean import clean_id, clean_optional, clean_text, split_list, unique
from kg.ingest.ids import paper_id
from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.mapping import Table
from kg.ingest.sources import Source
from kg.ingest.tables import detect
from kg.types import Paper


class BadRecord(ValueError):
    """A record that cannot be a paper; the message is the reason."""


# Record number of a bad record that is the whole file (e.g. a broken top-level JSON list).
WHOLE_FILE = 0
# The years a paper may carry: the four-digit years of the common era.
FIRST_YEAR, LAST_YEAR = 1, 9999


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
# Fields of a record read by name that may say its arXiv id (when it has no `arxiv` field).
_ARXIV_PLACES = ("eprint", "arxiv_id", "arxivid", "note", "url", "journal", "doi")
_ARXIV_ID_FIELDS = frozenset({"eprint", "arxiv_id", "arxivid"})
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
    limits: ReadLimits = DEFAULT_LIMITS,
    notes: list[str] | None = None,
) -> Paper:
    """The paper a record describes; raises `BadRecord` (with the reason) when it cannot be one.

    A record of a known source (`kg.ingest.tables`) is read through its table; any other by
    field name, case-insensitively, with `list_separators` splitting keywords and authors
    given as one string. Text with lone surrogates (scraped JSON's "\\ud800") is repaired
    (U+FFFD), a year outside 1-9999 is left out, each with a note naming the field appended to
    `notes`.
    """
    table = detect(fields)
    if table is None:
        values, links, extra = _by_name(fields, list_separators)
    else:
        values = table.apply(fields)
        links = _table_links(values.pop("links", None))
        extra = []
    check = _Checker(limits, notes if notes is not None else [])
    text = {name: check.text(name, values.get(name)) for name in _TEXT_FIELDS}
    record_id = check.id(values.get("id"))
    pid = paper_id(record_id, text["abstract"], text["title"])
    if pid is None:
        raise BadRecord(_empty_reason(fields, table))
    year = check.year(_as_year(values.get("year")))
    url = values.get("url")
    return Paper(
        id=pid,
        abstract=text["abstract"],
        title=text["title"],
        keywords=tuple(check.list("keywords", values.get("keywords"), list_separators)),
        authors=tuple(check.list("authors", values.get("authors"), list_separators)),
        year=year if year is not None else source.year,
        venue=text["venue"] or source.venue,
        url=check.text("url", url) if isinstance(url, str) else None,
        status=text["status"],
        collection=text["collection"] or source.collection,
        source=source.path,
        record=record,
        links=tuple(unique(check.text("links", link) or "" for link in links)),
        doi=_identifier(values.get("doi"), convert.doi),
        arxiv_id=_identifier(values.get("arxiv"), convert.arxiv_id),
        subjects=tuple(check.list("subjects", values.get("subjects"), list_separators)),
        extra=tuple((key, check.repaired(value)) for key, value in extra),
    )


def names_a_paper(names: Iterable[str]) -> bool:
    """True when a record with fields `names` could describe a paper: read through its
    source's table or by field name (as `to_paper` reads it), one of them gives an id, a
    title or an abstract. A table whose converters cannot tell from a placeholder counts as
    yes (the rows are then read and judged one by one)."""
    fields = {name: "x" for name in names}
    table = detect(fields)
    try:
        values = table.apply(fields) if table is not None else _by_name(fields, ";")[0]
    except (TypeError, ValueError, AttributeError, KeyError):
        return True
    return any(values.get(name) for name in ("id", "title", "abstract"))


def _by_name(
    fields: Mapping[str, Any], list_separators: str
) -> tuple[dict[str, Any], list[str], list[tuple[str, str]]]:
    """Known fields by (case-insensitive) name, links from link fields, the rest as extra."""
    values: dict[str, Any] = {}
    links: list[str] = []
    extra: list[tuple[str, str]] = []
    for key, value in fields.items():
        name = str(key).strip().lower()
        canonical = _LIST_FIELDS.get(name, name)
        if canonical in _KNOWN and canonical not in values:
            values[canonical] = value
        elif name in LINK_FIELDS:
            found, rest = _links(name, value)
            links.extend(found)
            if name in ("url", "site") and found and "url" not in values:
                values["url"] = found[0]
            if name in ("doi", "arxiv") and name not in values:
                values[name] = value
            if rest is not None:
                extra.append((str(key), rest))
        else:
            extra.append((str(key), _stringify(value)))
    if "arxiv" not in values:  # BibTeX `eprint`, Zotero's "arXiv:…" note, an arxiv.org URL
        lowered = {str(k).strip().lower(): v for k, v in fields.items()}
        for name in _ARXIV_PLACES:
            parse = convert.arxiv_id if name in _ARXIV_ID_FIELDS else convert.arxiv_id_in
            if (arxiv := parse(lowered.get(name))) is not None:
                values["arxiv"] = arxiv
                break
    return values, links, extra


def _table_links(value: Any) -> list[str]:
    """Links a table found (a URL or a list of URLs); anything that is not a link is dropped."""
    items = value if isinstance(value, list) else [value]
    return [link for item in items if isinstance(item, str) and (link := as_link("url", item))]


def _identifier(value: Any, parse: Callable[[Any], str | None]) -> str | None:
    found = parse(value) if isinstance(value, str | list) else None
    return found if found is None or not _SURROGATE.search(found) else None


def _empty_reason(fields: Mapping[str, Any], table: Table | None) -> str:
    """Why a record gives no paper: it has no id, title or abstract where they are looked for."""
    if table is None:
        return "empty record: no id, no title and no abstract"
    where = ", ".join(repr(p) for name in ("id", "title", "abstract") for p in table.paths(name))
    return f"empty record: no id, no title and no abstract (read as {table.name}: {where})"


_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass(slots=True)
class _Checker:
    """Checks one record's values: types, the size limit, and lone surrogates (repaired)."""

    limits: ReadLimits
    notes: list[str]

    def repaired(self, value: str, name: str | None = None) -> str:
        if not _SURROGATE.search(value):
            return value
        if name is not None:
            found = _SURROGATE.search(value)
            code = f"U+{ord(found.group()):04X}" if found else ""
            self.notes.append(
                f"field {name!r} holds a lone surrogate ({code}, invalid Unicode, as in JSON "
                "\"\\ud800\"): replaced with U+FFFD"
            )
        return _SURROGATE.sub("\ufffd", value)

    def _sized(self, name: str, value: str) -> str:
        if len(value) > self.limits.max_field_chars:
            raise BadRecord(
                f"field {name!r} has {len(value):,} characters, over the limit of "
                f"{self.limits.max_field_chars:,} (--max-field-chars)"
            )
        return value

    def text(self, name: str, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise BadRecord(f"field {name!r} is {_kind(value)}, expected text")
        return self._sized(name, self.repaired(clean_optional(value) or "", name)) or None

    def id(self, value: Any) -> str | None:
        found = _as_id(value)
        return self.repaired(found, "id") if found else found

    def year(self, value: int | None) -> int | None:
        """The year, or None (with a note) for one xsd:gYear cannot write as a plain
        four-digit year of the common era: -1 would be "-0001", 20245 a five-digit year."""
        if value is None or FIRST_YEAR <= value <= LAST_YEAR:
            return value
        self.notes.append(
            f"field 'year' is {value}, not a year from {FIRST_YEAR} to {LAST_YEAR}: left out"
        )
        return None

    def list(self, name: str, value: Any, separators: str) -> list[str]:
        items = _as_list(name, value, separators)
        return [self._sized(name, self.repaired(item, name)) for item in items]


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


def _as_list(name: str, value: Any, separators: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return split_list(value, separators)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return unique(clean_text(item) for item in value)
    if isinstance(value, list) and all(isinstance(item, str | None) for item in value):
        return unique(clean_text(item) for item in value if item is not None)
    raise BadRecord(
        f"field {name!r} is {_kind(value)}, expected a list of text or one "
        f"{' or '.join(repr(s) for s in separators)}-separated text"
    )


def _as_id(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return clean_id(value) or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise BadRecord(f"field 'id' is {_kind(value)}, expected text or an integer")


def _as_year(value: Any) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and value != value:  # NaN: how pandas writes a missing year
        return None
    if isinstance(value, float) and value.is_integer():  # 2020.0, from a spreadsheet column
        return int(value)
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
