"""Broad candidate spans for the learned decisions: the pieces of noun phrases.

The rule-based terms commit to one boundary per noun phrase ("photo-realistic novel view
synthesis", "Hyperband and Spearmint", "unprecedented 85.5% success rate"); the term a
reader wants is often a part of it ("novel view synthesis", "Hyperband", "success rate").
Here every noun chunk and every run of nouns/adjectives/numbers by their tags — widened over
words glued to it by hyphens ("in-context learning", "mixture-of-experts") — is split at
coordinations and commas, and each piece gives every contiguous run of up to `MAX_WORDS`
words that starts and ends on a content word without cutting a hyphenated word. The learned
model decides which, if any, is the concept.
"""

from __future__ import annotations

from collections.abc import Iterable

from spacy.tokens import Doc, Token

from kg.extract.terms import Term, has_finite_verb, head_type, label_of

MAX_WORDS = 5
_EDGE_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "VERB", "X"})
_END_POS = frozenset({"NOUN", "PROPN", "NUM", "X"})
_SPLIT = frozenset({"and", "or", ",", ";", "/", "(", ")", "e.g.", "i.e.", "such", "as",
                    "including", "like", "vs", "vs.", "versus"})
_STOP = frozenset({"our", "their", "its", "this", "these", "those", "that", "the", "a", "an",
                   "each", "every", "any", "some", "such", "both", "either", "which"})


def _glued(doc: Doc, i: int) -> bool:
    """Is token i joined to token i + 1 without a space by a hyphen on either side?"""
    if i + 1 >= len(doc) or doc[i].whitespace_:
        return False
    return doc[i].text in {"-", "–"} or doc[i + 1].text in {"-", "–"}


def _widen(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Extend [start, end) over hyphen-glued words on both sides ("in-" + "context learning")."""
    while start > 0 and _glued(doc, start - 1):
        start -= 1
    while end < len(doc) and _glued(doc, end - 1):
        end += 1
    return start, end


def _pieces(tokens: list[Token]) -> Iterable[list[Token]]:
    piece: list[Token] = []
    for tok in tokens:
        if tok.lower_ in _SPLIT or (tok.is_punct and tok.text not in {"-", "–"}):
            if piece:
                yield piece
            piece = []
        else:
            piece.append(tok)
    if piece:
        yield piece


def _word_starts(piece: list[Token]) -> list[int]:
    """Indices in `piece` where a whole (possibly hyphenated) word starts."""
    doc = piece[0].doc
    return [k for k, tok in enumerate(piece) if k == 0 or not _glued(doc, tok.i - 1)]


_RUN_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "X"})


def _tag_runs(doc: Doc) -> list[tuple[int, int]]:
    """Maximal runs of nouns, adjectives, numbers and hyphen-glued words, by their tags: the
    noun phrases a wrong parse leaves out of its chunks ("max pooling" read as a verb's)."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(doc):
        if doc[i].pos_ not in _RUN_POS:
            i += 1
            continue
        start, end = _widen(doc, i, i + 1)
        while end < len(doc) and (doc[end].pos_ in _RUN_POS or _glued(doc, end - 1)):
            end = _widen(doc, end, end + 1)[1]
        runs.append((start, end))
        i = end
    return runs


def sub_terms(doc: Doc, taken: set[tuple[int, int]]) -> list[Term]:
    """Candidate spans inside the (widened) noun chunks of `doc`, except those in `taken`."""
    terms: list[Term] = []
    seen = set(taken)
    regions = [_widen(doc, chunk.start, chunk.end) for chunk in doc.noun_chunks]
    regions += _tag_runs(doc)
    for start, end in sorted(set(regions)):
        for piece in _pieces(list(doc[start:end])):
            starts = _word_starts(piece)
            ends = [*starts[1:], len(piece)]
            for a_idx, a in enumerate(starts):
                first = piece[a]
                hyphenated = _glued(doc, first.i)  # "in-context": any word may start it
                if first.lower_ in _STOP or (first.pos_ not in _EDGE_POS and not hyphenated):
                    continue
                for b in ends[a_idx:a_idx + MAX_WORDS]:
                    tokens = piece[a:b]
                    last = tokens[-1]
                    if (last.pos_ not in _END_POS and not _glued(doc, last.i - 1)) or not any(
                        t.is_alpha for t in tokens
                    ):
                        continue
                    span = (tokens[0].i, last.i + 1)
                    if span in seen or has_finite_verb(tokens):
                        continue
                    seen.add(span)
                    label = label_of(tokens)
                    if label:
                        terms.append(Term(span[0], span[1], label, "span",
                                          head_type(last.text)))
    return terms
