"""Resource IRIs minted from stable keys (docs/VOCABULARY.md): same input, same IRIs.

>>> from kg.types import Field
>>> iris = Iris("https://example.org/r/")
>>> iris.paper("a/b c#d")
'https://example.org/r/paper/a%2Fb%20c%23d'
>>> iris.concept("large language model")
'https://example.org/r/concept/large-language-model'
>>> iris.evidence(iris.paper("2401.00001"), Span(Field.ABSTRACT, 512, 516))
'https://example.org/r/paper/2401.00001/evidence/abstract-512-516'
>>> paper_key(Paper(id="", abstract="  Deep   Nets. "))
'h-d1d01e34c4550dd7'
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from urllib.parse import quote

from pyoxigraph import NamedNode

from kg.errors import InputError
from kg.ingest.ids import paper_id
from kg.normalize import fold_diacritics, slug
from kg.types import Paper, Span


def paper_key(paper: Paper) -> str:
    """The paper's id; a record without one gets the content id `kg.ingest` would give it."""
    if paper.id:
        return paper.id
    key = paper_id(None, paper.abstract, paper.title)
    if key is None:
        raise InputError(
            "paper has no id, abstract or title; drop the record", source=paper.source,
            record=paper.record,
        )  # fmt: skip
    return key


# Latin letters that Unicode does not decompose into a base letter and an accent.
_LATIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d",
                                "ð": "d", "þ": "th", "ı": "i", "ħ": "h", "ŀ": "l"})  # fmt: skip


_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def person_slug(name: str) -> str:
    """The IRI segment of an author: the name lower-cased with accents folded ("José García" and
    "Jose Garcia" are one person, as exports often drop accents), letters of other scripts kept
    (percent-encoded), anything else a '-'.

    >>> [person_slug(n) for n in ["José García", "Łukasz Kaiser", "Søren Kierkegaard"]]
    ['jose-garcia', 'lukasz-kaiser', 'soren-kierkegaard']
    >>> person_slug("王小明"), person_slug("李华") != person_slug("王小明"), person_slug("…")
    ('%E7%8E%8B%E5%B0%8F%E6%98%8E', True, '_')
    """
    if name.isascii():  # most names: the loop below keeps [a-z0-9] and makes the rest '-'
        text = "-".join(part for part in _NOT_ALNUM.split(name.lower()) if part)
        return text or "_"
    parts: list[str] = []
    for ch in unicodedata.normalize("NFC", name.lower()).translate(_LATIN_LETTERS):
        base = fold_diacritics(ch)
        if base.isascii() and base.isalnum():  # a Latin letter, perhaps with accents
            parts.append(base)
        elif ch.isalnum():
            parts.append(quote(ch, safe=""))
        elif unicodedata.category(ch) == "Mn":  # a combining mark that NFC left alone
            continue
        else:
            parts.append("-")
    text = "-".join(part for part in "".join(parts).split("-") if part)
    return text or "_"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_segment(key: str) -> str:
    """Percent-encode a key into one IRI path segment (injective: '%' itself is encoded).

    `.` and `..` are encoded too: IRI resolution would otherwise treat them as dot-segments.
    """
    if not key:
        raise ValueError("an IRI key must not be empty")
    segment = quote(key, safe="")
    return segment.replace(".", "%2E") if segment in {".", ".."} else segment


def check_base(base: str) -> str:
    """Return `base` if it is an absolute IRI ending in '/' or '#', else raise InputError."""
    try:
        NamedNode(base)
    except ValueError as exc:
        raise InputError(
            f"base IRI {base!r} is not a valid absolute IRI ({exc}); "
            "pass one such as https://w3id.org/paperkg/resource/"
        ) from exc
    if not base.endswith(("/", "#")):
        raise InputError(f"base IRI {base!r} must end with '/' or '#'; append one")
    return base


class Iris:
    """Mints every resource IRI of the graph under one base."""

    def __init__(self, base: str) -> None:
        self.base = check_base(base)
        self.scheme = base + "concepts"

    def paper(self, key: str) -> str:
        return f"{self.base}paper/{encode_segment(key)}"

    def collection(self, name: str) -> str:
        return f"{self.base}collection/{slug(name)}"

    def person(self, name: str) -> str:
        return f"{self.base}person/{person_slug(name)}"

    def concept(self, key: str) -> str:
        return f"{self.base}concept/{slug(key)}"

    def concepts(self, keys: Iterable[str]) -> dict[str, str]:
        """The IRI of every concept key; keys whose slugs collide get a hash suffix each.

        >>> sorted(Iris("https://e.org/").concepts(["C++", "cplusplus", "BERT"]).values())
        ... # doctest: +NORMALIZE_WHITESPACE
        ['https://e.org/concept/bert', 'https://e.org/concept/cplusplus-1996c130',
         'https://e.org/concept/cplusplus-f1deb75f']
        """
        by_slug: dict[str, list[str]] = defaultdict(list)
        for key in keys:
            by_slug[slug(key)].append(key)
        iris: dict[str, str] = {}
        for name, same in by_slug.items():
            for key in same:
                tail = "" if len(same) == 1 else "-" + _digest(key)[:8]
                iris[key] = f"{self.base}concept/{name}{tail}"
        return iris

    @staticmethod
    def evidence(paper_iri: str, span: Span, suffix: str = "") -> str:
        """The evidence of one mention; `suffix` tells apart two concepts claiming one span."""
        tail = f"-{suffix}" if suffix else ""
        return f"{paper_iri}/evidence/{span.field.value}-{span.start}-{span.end}{tail}"

    @staticmethod
    def sentence(paper_iri: str, span: Span) -> str:
        return f"{paper_iri}/sentence/{span.field.value}-{span.start}-{span.end}"

    def extractor(self, name: str, version: str) -> str:
        return f"{self.base}extractor/{slug(name)}/{encode_segment(version)}"
