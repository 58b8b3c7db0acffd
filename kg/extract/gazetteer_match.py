"""Finding gazetteer terms in a parsed doc by normalised n-gram lookup.

Each token n-gram (up to `MAX_WORDS` words) that starts and ends on a content word is looked
up by `norm_key` in the gazetteer; the longest match at each position wins. This replaces a
spaCy `PhraseMatcher`/`SpanRuler`: building one over the 27k gazetteer labels (plus plural and
hyphen variants) took 5-7 s at every start-up (measured, see README), more than extracting a
few hundred abstracts, while the lookup costs about a millisecond per abstract and matches
every case, hyphen and plural variant through `norm_key` for free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from spacy.tokens import Doc, Span

from kg.normalize import norm_key, norm_text
from kg.vocab.gazetteer import Entry

MAX_WORDS = 6
_JOINERS = frozenset({"-", "--", "/"})
_EDGE_POS = frozenset({"DET", "PRON", "ADP", "CCONJ", "SCONJ", "AUX", "PART", "PUNCT", "SYM",
                       "SPACE", "NUM"})


def usable_entries(text: str, entries: Sequence[Entry]) -> list[Entry]:
    """Entries that this surface text may stand for: generic labels never, distinctively
    spelled labels ("IS-A", "PaLM") only when spelled the same way.

    >>> from kg.types import ConceptType
    >>> e = Entry("IS-A", ConceptType.DATASET, "pwc-dataset", "", False)
    >>> usable_entries("is a", [e]), len(usable_entries("IS-A", [e]))
    ([], 1)
    """
    out = []
    for entry in entries:
        if entry.distinctive:
            if text in (entry.label, entry.label + "s"):
                out.append(entry)
        elif not entry.generic:
            out.append(entry)
    return out


@dataclass(frozen=True, slots=True)
class GazetteerIndex:
    """A gazetteer lookup plus the word prefixes of its keys, so that the scan extends an
    n-gram only while some entry still starts with it."""

    lookup: Callable[[str], Sequence[Entry]]
    keys: frozenset[str]
    prefixes: frozenset[str]

    @classmethod
    def build(
        cls, lookup: Callable[[str], Sequence[Entry]], keys: Iterable[str]
    ) -> GazetteerIndex:
        all_keys = frozenset(keys)
        prefixes: set[str] = set()
        for key in all_keys:
            words = key.split()
            for k in range(1, len(words)):
                prefixes.add(" ".join(words[:k]))
        return cls(lookup, all_keys, frozenset(prefixes))


@lru_cache(maxsize=1 << 16)
def _token_words(text: str) -> tuple[str, ...]:
    """The key words of one token, without singularising ("GPT-4o" -> ("gpt", "4o"))."""
    return tuple(norm_text(text).split())


def gazetteer_spans(doc: Doc, index: GazetteerIndex) -> list[Span]:
    """Non-overlapping spans of `doc` that name a gazetteer entry, longest first, left to right."""
    tokens = list(doc)
    n = len(tokens)
    spans: list[Span] = []
    i = 0
    while i < n:
        first = tokens[i]
        if first.pos_ in _EDGE_POS or not first.text[:1].isalnum():
            i += 1
            continue
        ends: list[int] = []
        words: list[str] = []
        j = i
        while j < n and len(words) < MAX_WORDS:
            token = tokens[j]
            if token.text in _JOINERS:
                j += 1
                continue
            if token.is_punct:
                break
            words.extend(_token_words(token.text))
            if not words:
                break
            prefix = " ".join(words)
            if (token.pos_ not in _EDGE_POS and token.text[:1].isalnum()
                    and norm_key(prefix) in index.keys):
                ends.append(j + 1)
            if prefix not in index.prefixes:
                break
            j += 1
        found = 0
        for end in reversed(ends):
            text = doc[i:end].text
            if usable_entries(text, index.lookup(text)):
                found = end
                break
        if found:
            spans.append(doc[i:found])
            i = found
        else:
            i += 1
    return spans
