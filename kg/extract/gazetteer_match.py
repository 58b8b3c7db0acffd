"""Finding gazetteer terms in a parsed doc by normalised n-gram lookup.

Each token n-gram (up to `MAX_WORDS` words) that starts and ends on a content word is looked
up by `norm_key` in the gazetteer; the longest match at each position wins. This replaces a
spaCy `PhraseMatcher`/`SpanRuler`: building one over the 27k gazetteer labels (plus plural and
hyphen variants) took 5-7 s at every start-up (measured, see README), more than extracting a
few hundred abstracts, while the lookup costs about a millisecond per abstract and matches
every case, hyphen and plural variant through `norm_key` for free.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spacy.tokens import Doc, Span

from kg.vocab import Entry

MAX_WORDS = 6
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


def gazetteer_spans(doc: Doc, lookup: Callable[[str], Sequence[Entry]]) -> list[Span]:
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
        found = 0
        words = 0
        # Longest first: collect candidate ends, then try them from the right.
        ends: list[int] = []
        j = i
        while j < n and words < MAX_WORDS:
            token = tokens[j]
            if token.is_punct and token.text not in {"-", "--", "/"}:
                break
            if token.text not in {"-", "--", "/"}:
                words += 1
                if token.pos_ not in _EDGE_POS and token.text[:1].isalnum():
                    ends.append(j + 1)
            j += 1
        for end in reversed(ends):
            text = doc[i:end].text
            if usable_entries(text, lookup(text)):
                found = end
                break
        if found:
            spans.append(doc[i:found])
            i = found
        else:
            i += 1
    return spans
