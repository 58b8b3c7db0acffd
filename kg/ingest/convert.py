"""Value converters named in the source tables (`kg.ingest.tables`): pure functions, one value in,
one plain value out (text, a list of text or an integer), None when the value says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from kg.ingest.latex import decode_latex

Converter = Callable[[Any], Any]

_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")
_ARXIV_NEW = re.compile(r"(?<!\d)(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"(?<![\w.-])([a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?!\d)")
_DOI = re.compile(r"10\.\d{4,9}/[^\s\"<>]+")
# "A, B and C", "A, B, and C", "A and B".
_AUTHOR_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def inverted_index(value: Any) -> str | None:
    """OpenAlex's `abstract_inverted_index` ({word: [positions]}) back into the abstract.

    >>> inverted_index({"Attention": [0], "is": [1, 4], "all": [2], "you": [3], "need": [5]})
    'Attention is all you is need'
    >>> inverted_index(None) is None, inverted_index({}) is None
    (True, True)
    """
    if not isinstance(value, dict) or not value:
        return None
    placed: dict[int, str] = {}
    for word, positions in value.items():
        if not isinstance(positions, list):
            continue
        for position in positions:
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed[position] = str(word)
    return " ".join(placed[i] for i in sorted(placed)) or None


def year(value: Any) -> int | None:
    """A year from an integer, a date ("2017-06-12", "Mon, 2 Apr 2007 19:18:42 GMT", "2017 Jun"),
    a CSL date object ({"date-parts": [[2017, 6]]}) or a millisecond timestamp (OpenReview).

    >>> year(2017), year("2017-06-12"), year("Mon, 2 Apr 2007 19:18:42 GMT"), year("2019 Jun 1")
    (2017, 2017, 2007, 2019)
    >>> year({"date-parts": [[2017, 6, 12]]}), year(1696118400000), year("n.d.")
    (2017, 2023, None)
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int) and value > 10_000_000_000:  # epoch milliseconds
        return datetime.fromtimestamp(value / 1000, tz=UTC).year
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year(parts[0][0])
        return year(value.get("raw") or value.get("literal"))
    if isinstance(value, str) and (match := _YEAR.search(value)):
        return int(match.group(1))
    return None


def first_year(value: Any) -> int | None:
    """The year of the first element of a list (arXiv `versions[].created`)."""
    if isinstance(value, list):
        return next((y for y in map(year, value) if y is not None), None)
    return year(value)


def doi(value: Any) -> str | None:
    """A DOI, lower-cased, from "10.…", "doi:10.…" or "https://doi.org/10.…".

    >>> doi("https://doi.org/10.48550/arXiv.1706.03762"), doi("n/a")
    ('10.48550/arxiv.1706.03762', None)
    """
    text = _first_text(value)
    if text and (match := _DOI.search(text)):
        return match.group(0).rstrip(".,;").lower()
    return None


def arxiv_id(value: Any) -> str | None:
    """An arXiv id without version from an id, a URL, "arXiv:…" or a DOI 10.48550/arXiv.….

    >>> arxiv_id("http://arxiv.org/abs/1706.03762v7"), arxiv_id("arXiv: hep-th/9901001")
    ('1706.03762', 'hep-th/9901001')
    >>> arxiv_id("10.48550/arXiv.1810.04805"), arxiv_id("W2963403868")
    ('1810.04805', None)
    """
    for text in _texts(value):
        if "arxiv" not in text.lower() and not re.fullmatch(r"\s*[\w./-]+\s*", text):
            continue
        match = _ARXIV_NEW.search(text) or _ARXIV_OLD.search(text)
        if match:
            return match.group(1)
    return None


def arxiv_id_in(value: Any) -> str | None:
    """An arXiv id from text that must say "arXiv" (Zotero's Extra, a URL, a DOI)."""
    texts = [t for t in _texts(value) if "arxiv" in t.lower()]
    return arxiv_id(texts) if texts else None


def latex(value: Any) -> Any:
    """LaTeX decoded in text or in each text of a list (arXiv metadata)."""
    if isinstance(value, str):
        return decode_latex(value)
    if isinstance(value, list):
        return [decode_latex(v) if isinstance(v, str) else v for v in value]
    return value


def and_list(value: Any) -> list[str] | None:
    """arXiv's author string "A, B and C" -> ["A", "B", "C"], LaTeX decoded.

    >>> and_list(r"Ashish Vaswani, Noam Shazeer, and {\\L}ukasz Kaiser")
    ['Ashish Vaswani', 'Noam Shazeer', 'Łukasz Kaiser']
    """
    if not isinstance(value, str):
        return None
    text = re.sub(r"\s+", " ", value).strip()
    # Affiliations in parentheses ("A (MIT), B") hold commas and "and" of their own.
    text = re.sub(r"\s*\([^()]*\)", "", text)
    return [decode_latex(name) for name in _AUTHOR_SEPARATOR.split(text) if name.strip()]


def last_first(value: Any) -> Any:
    """"Last, First" -> "First Last" for one name or each of a list (RIS, Zotero, MEDLINE).

    >>> last_first(["Vaswani, Ashish", "Kaiser, Łukasz", "OpenAI"])
    ['Ashish Vaswani', 'Łukasz Kaiser', 'OpenAI']
    >>> last_first("Devlin, Jacob; Chang, Ming-Wei")
    ['Jacob Devlin', 'Ming-Wei Chang']
    """
    if isinstance(value, str):
        value = [part for part in value.split(";") if part.strip()]
    if not isinstance(value, list):
        return value
    names = []
    for name in value:
        if not isinstance(name, str):
            continue
        last, comma, first = name.partition(",")
        first, _, suffix = first.partition(",")  # "King, Martin Luther, Jr."
        parts = [first.strip(), last.strip()] if comma else [name.strip()]
        full = " ".join(p for p in parts if p)
        names.append(f"{full}, {suffix.strip()}" if suffix.strip() else full)
    return names


def parsed_names(value: Any) -> list[str] | None:
    """arXiv's `authors_parsed` ([[last, first, suffix], ...]) -> "First Last" names, decoded."""
    if not isinstance(value, list):
        return None
    names = []
    for parts in value:
        if not isinstance(parts, list) or not parts:
            continue
        words = [str(parts[1]) if len(parts) > 1 else "", str(parts[0])]
        name = " ".join(w.strip() for w in words if w and w.strip())
        suffix = str(parts[2]).strip() if len(parts) > 2 and parts[2] else ""
        names.append(decode_latex(f"{name}, {suffix}" if suffix else name))
    return names


def csl_names(value: Any) -> list[str] | None:
    """CSL-JSON name objects ({"family", "given"} or {"literal"}) -> "Given Family"."""
    if not isinstance(value, list):
        return None
    names = []
    for person in value:
        if isinstance(person, dict):
            literal = person.get("literal")
            words = [person.get("given"), person.get("non-dropping-particle"),
                     person.get("family")]  # fmt: skip
            name = literal or " ".join(str(w) for w in words if w)
            suffix = person.get("suffix")
            names.append(f"{name}, {suffix}" if suffix else name)
        elif isinstance(person, str):
            names.append(person)
    return names


def words(value: Any) -> list[str] | None:
    """Space-separated terms (arXiv `categories` "cs.CL cs.LG") -> a list."""
    if isinstance(value, str):
        return value.split()
    return value if isinstance(value, list) else None


def comma_list(value: Any) -> list[str] | None:
    """A comma- or semicolon-separated text (CSL `keyword`) -> a list."""
    if isinstance(value, str):
        return [part.strip() for part in re.split(r"[,;]", value) if part.strip()]
    return value if isinstance(value, list) else None


def semicolon_list(value: Any) -> list[str] | None:
    """A semicolon-separated text (Zotero "Manual Tags") -> a list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(";") if part.strip()]
    return value if isinstance(value, list) else None


def openreview_url(value: Any) -> str | None:
    """The forum page of an OpenReview note id."""
    return f"https://openreview.net/forum?id={value}" if isinstance(value, str) and value else None


def openreview_pdf(value: Any) -> str | None:
    """An OpenReview `pdf` value ("/pdf/abc.pdf") as an absolute URL."""
    if isinstance(value, str) and value.startswith("/"):
        return "https://openreview.net" + value
    return value if isinstance(value, str) else None


def openalex_id(value: Any) -> str | None:
    """ "https://openalex.org/W2741809807" -> "W2741809807"."""
    if isinstance(value, str):
        return value.rstrip("/").rsplit("/", 1)[-1] or None
    return None


def first(value: Any) -> Any:
    """The first element of a list (RIS titles, MEDLINE dates), else the value."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _first_text(value: Any) -> str | None:
    return next(iter(_texts(value)), None)


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []
