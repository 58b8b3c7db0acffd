"""BibTeX entries (bibtexparser 1.4): authors "A and B", keywords ","/";", LaTeX -> Unicode.

Entries without an abstract are still papers. The record number is the entry number, counting
only entries (not `@string`, `@comment` or `@preamble`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from kg.ingest.latex import decode_latex
from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.records import WHOLE_FILE, RawRecord

_NON_ENTRIES = ("string", "comment", "preamble")
_ENTRY_START = re.compile(rb"^[ \t]*@[ \t]*([A-Za-z]+)[ \t]*[{(]")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
# Fields that name the venue when the entry has no `venue` field, in order of preference.
_VENUE_FIELDS = ("booktitle", "journal")


def latex_text(value: str) -> str:
    """LaTeX markup in a field value turned into plain Unicode where that is unambiguous
    (`kg.ingest.latex`: `\\log`, `\\cite{x}` and `\\item` are kept as written).

    >>> latex_text(r"Schr{\\"o}dinger {BERT} for \\emph{G{\\'e}rard} \\& co -- 50\\%")
    'Schrödinger BERT for Gérard & co -- 50%'
    """
    return decode_latex(value)


def split_authors(value: str) -> list[str]:
    """BibTeX author list -> names as written, "Last, First" turned into "First Last".

    "and" inside braces does not split ("{Barnes and Noble}").

    >>> split_authors("Snell, Jake and van der Maaten, Laurens AND {Barnes and Noble}")
    ['Jake Snell', 'Laurens van der Maaten', 'Barnes and Noble']
    """
    from bibtexparser.customization import InvalidName, splitname

    names = []
    for name in _split_top_level(value, _AND):
        if "," in _outside_braces(name):
            try:
                parts = splitname(name)
            except InvalidName:
                parts = {}
            if parts:
                words = parts["first"] + parts["von"] + parts["last"]
                name = " ".join(words) + (", " + " ".join(parts["jr"]) if parts["jr"] else "")
        names.append(latex_text(name))
    return names


def _outside_braces(text: str) -> str:
    """`text` with every braced group removed."""
    depth = 0
    kept = []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            kept.append(ch)
    return "".join(kept)


def _split_top_level(text: str, separator: re.Pattern[str]) -> list[str]:
    """Split at matches of `separator` that are not inside braces."""
    parts: list[str] = []
    start = 0
    for match in separator.finditer(text):
        if _depth_at(text, match.start()) == 0:
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _depth_at(text: str, index: int) -> int:
    return text.count("{", 0, index) - text.count("}", 0, index)


def chunks(stream: BinaryIO, max_bytes: int | None = None) -> Iterator[tuple[str, bytes]]:
    """(entry type, raw bytes) of each `@type{...}` block, one at a time.

    Hand-written because bibtexparser 1.x parses a whole string and turns an entry it cannot
    parse into a comment without a word: splitting at every line that starts with `@type{`
    gives each entry its number and confines a broken entry (say, a missing brace) to itself.
    """
    kind = ""
    lines: list[bytes] = []
    size = 0
    for line in stream:
        start = _ENTRY_START.match(line)
        if start:
            if kind:
                yield kind, b"".join(lines) if lines else _TOO_BIG + str(size).encode()
            kind, lines, size = start.group(1).decode("ascii").lower(), [], 0
        if kind:
            size += len(line)
            if max_bytes is None or size <= max_bytes:
                lines.append(line)
            else:
                lines = []
    if kind:
        yield kind, b"".join(lines) if lines else _TOO_BIG + str(size).encode()


_TOO_BIG = b"\x00too big:"


def read_bibtex(stream: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[RawRecord]:
    """The entries of a BibTeX file as records (one entry parsed at a time)."""
    from bibtexparser.bibtexexpression import BibtexExpression
    from bibtexparser.bparser import BibTexParser

    with _quiet_pyparsing():
        parser = BibTexParser(ignore_nonstandard_types=False, common_strings=True)
    parser.expect_multiple_parse = True  # one parse per entry, sharing @string definitions
    entries = parser.bib_database.entries
    number = 0
    for kind, raw in chunks(stream, limits.max_record_bytes):
        if kind == "comment":
            continue
        what = f"@{kind} after entry {number}" if kind in _NON_ENTRIES else "entry"
        if kind not in _NON_ENTRIES:
            number += 1
        if raw.startswith(_TOO_BIG):
            size = int(raw[len(_TOO_BIG) :])
            yield RawRecord(number if kind not in _NON_ENTRIES else WHOLE_FILE,
                            error=limits.record_too_big(size, what))  # fmt: skip
            continue
        try:
            text = raw.decode("utf-8-sig")
            before = len(entries)
            with _quiet_pyparsing():
                parser.parse(text)
        except UnicodeDecodeError as exc:
            error = f"{what} is not valid UTF-8 ({exc.reason} at byte {exc.start} of it)"
        except BibtexExpression.ParseException as exc:
            error = f"{what} cannot be parsed as BibTeX ({exc})"
        else:
            if kind in _NON_ENTRIES:
                continue
            if len(entries) > before:
                yield RawRecord(number, _fields(entries.pop(), text))
                continue
            error = "entry cannot be parsed as BibTeX (check its braces, commas and key)"
        # A broken @string or @preamble is no entry: it is reported as record 0.
        yield RawRecord(number if kind not in _NON_ENTRIES else WHOLE_FILE, error=error)


@contextmanager
def _quiet_pyparsing() -> Iterator[None]:
    """Hide the deprecation warnings bibtexparser 1.4.3 triggers in pyparsing 3.3 (a
    `UserWarning` subclass, so every user would see them); they are not about our input."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="bibtexparser")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="pyparsing")
        yield


def _fields(entry: dict[str, Any], text: str) -> dict[str, Any]:
    """An entry as record fields, in the order they are written in the entry."""
    order = {name: _position(text, name) for name in entry}
    fields: dict[str, Any] = {"id": entry["ID"], "entrytype": entry["ENTRYTYPE"]}
    has_venue = "venue" in entry
    for name in sorted(entry, key=order.__getitem__):
        value = entry[name]
        if name in ("ID", "ENTRYTYPE"):
            continue
        if name == "author":
            fields["author"] = split_authors(value)
        elif name in ("keywords", "keyword"):
            fields[name] = [latex_text(k) for k in re.split(r"[,;]", value)]
        elif name in ("title", "abstract", "venue"):
            fields[name] = latex_text(value)
        elif name in _VENUE_FIELDS and not has_venue:
            fields["venue"] = latex_text(value)
            has_venue = True
        else:
            fields[name] = value
    return fields


def _position(text: str, name: str) -> int:
    """Where field `name` is written in the entry (so fields keep their written order)."""
    match = re.search(rf"[,{{\s]{re.escape(name)}\s*=", text, re.IGNORECASE)
    return match.start() if match else len(text)
