"""Acronym definitions: "long form (SF)", "SF (long form)", "SF, the long form", "a.k.a.",
"long form or SF" (every word's initial spelling it).

The matching of a short form against candidate long-form words is the algorithm of
Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation definitions in
biomedical text" (PSB 2003): walk the short form right to left, finding each character in the
long form, the first one at the start of a word; the long form is the shortest word-aligned
suffix of the candidate text that contains the match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Doc, Span

from kg.extract.lexicon import EVALUATIVE, GENERAL_ADJECTIVES

_SHORT_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-./&]{0,11}$")
_STOP_PAREN = frozenset(
    {"e.g.", "i.e.", "e.g", "i.e", "eg", "ie", "cf", "cf.", "see", "resp", "resp."}
)
# Tokens that end a candidate long form when walking left from the parenthesis.
_BOUNDARY_TEXT = frozenset({",", ";", ":", "(", ")", "[", "]", "{", "}", "\"", "“", "”", "—", "–"})
_AKA = re.compile(r"^(a\.?k\.?a\.?|aka)$", re.IGNORECASE)


def is_short_form(text: str) -> bool:
    """Could `text` be an acronym? Needs a letter, an upper-case letter and at most 12 chars.

    >>> [is_short_form(t) for t in ["LQCA", "DiTs", "FiSAO", "e.g.", "data", "2024", "KV"]]
    [True, True, True, False, False, False, True]
    """
    if not _SHORT_OK.match(text) or text.lower() in _STOP_PAREN:
        return False
    letters = [c for c in text if c.isalpha()]
    if not letters or not any(c.isupper() for c in letters):
        return False
    return not (len(letters) > 1 and text.istitle() and text.isalpha() and len(text) > 5)


def spelled(short: str) -> str:
    """The letters a short form spells, a digit after a capital standing for that many of it
    ("P3O" is three words in P and one in O, "A2C" two in A): the convention of names such as
    A3C (Asynchronous Advantage Actor-Critic). Other short forms as they are.

    >>> spelled("P3O"), spelled("A2C"), spelled("I3D"), spelled("3D"), spelled("GPT4")
    ('PPPO', 'AAC', 'IIID', '3D', 'GPT4')
    """
    out = []
    for i, ch in enumerate(short):
        prev = short[i - 1] if i else ""
        following = short[i + 1] if i + 1 < len(short) else ""
        # Between letters only: a digit at the end is a version ("GPT4", "YOLOv8").
        if ch in "23456789" and prev.isupper() and following.isalpha():
            out.append(prev * (int(ch) - 1))
        else:
            out.append(ch)
    return "".join(out)


def find_best_long_form(short: str, long: str) -> str | None:
    """The shortest suffix of `long` that `short` abbreviates (Schwartz & Hearst), or None;
    a short form with a letter count in it ("P3O") is also tried as the letters it spells.

    >>> find_best_long_form("LQCA", "the Long Question Coreference Adaptation")
    'Long Question Coreference Adaptation'
    >>> find_best_long_form("DiTs", "conditional diffusion transformers")
    'diffusion transformers'
    >>> find_best_long_form("OOD", "improve out-of-distribution")
    'out-of-distribution'
    >>> find_best_long_form("JEDi", "JEPA Embedding Distance")
    'JEPA Embedding Distance'
    >>> find_best_long_form("KV", "the cache size") is None
    True
    >>> find_best_long_form("P3O", "we propose Pairwise Proximal Policy Optimization")
    'Pairwise Proximal Policy Optimization'
    """
    found = _schwartz_hearst(short, long)
    letters = spelled(short)
    if found is None and letters != short:
        found = _schwartz_hearst(letters, long)
    return found


def _schwartz_hearst(short: str, long: str) -> str | None:
    s_index = len(short) - 1
    l_index = len(long) - 1
    while s_index >= 0:
        current = short[s_index].lower()
        if not current.isalnum():
            s_index -= 1
            continue
        while l_index >= 0 and (
            long[l_index].lower() != current
            or (s_index == 0 and l_index > 0 and long[l_index - 1].isalnum())
        ):
            l_index -= 1
        if l_index < 0:
            return None
        l_index -= 1
        s_index -= 1
    # Start at the word containing the first match (hyphenated words count as one word).
    first = l_index + 1
    while first > 0 and long[first - 1] not in " ":
        first -= 1
    start = first
    result = long[start:].strip()
    if not result or len(result) <= len(short):
        return None
    words = result.split()
    if len(words) > min(len(short) + 5, len(short) * 2):
        return None
    by_initials = initials_long_form(short, long)
    if by_initials is not None and len(by_initials) > len(result):
        return by_initials
    return result


# Words an acronym skips ("Actively Discovering and Adapting to Preferences for any Task").
_SKIPPED = frozenset("a an the and or of for to in on with via by from at any".split())


def initials_long_form(short: str, long: str) -> str | None:
    """The words of `long`'s end whose initials spell `short`, function words skipped.

    Schwartz & Hearst take the shortest match, which can stop inside the long form when a
    letter recurs ("ADAPT" in "…Discovering and Adapting…"); every letter starting a word is
    the stronger evidence.

    >>> initials_long_form("ADAP", "we use Actively Discovering and Adapting to Preferences")
    'Actively Discovering and Adapting to Preferences'
    >>> initials_long_form("DiT", "conditional diffusion transformers") is None
    True
    """
    letters = [c.lower() for c in short if c.isalnum()]
    if not letters or not all(c.isalpha() for c in letters):
        return None
    words = long.split()
    i, j = len(words) - 1, len(letters) - 1
    while i >= 0 and j >= 0:
        word = words[i]
        if word.lower() in _SKIPPED and j < len(letters) - 1:
            i -= 1
            continue
        if word[:1].lower() != letters[j]:
            return None
        i, j = i - 1, j - 1
    return " ".join(words[i + 1 :]) if j < 0 else None


@dataclass(frozen=True, slots=True)
class Definition:
    """An acronym defined in a doc: token spans of the short and the long form."""

    short: Span
    long: Span


def _is_evaluative(span: Span) -> bool:
    """ "state-of-the-art (SOTA)" abbreviates a judgement, not a concept."""
    text = span.text.lower()
    words = text.replace("-", " ").split()
    return text in EVALUATIVE or all(w in EVALUATIVE or w in GENERAL_ADJECTIVES for w in words)


def _strip_plural(text: str) -> str:
    """'LLMs' -> 'LLM'; 'DiTs' -> 'DiT' (a trailing lower-case s after an upper-case letter)."""
    if len(text) > 2 and text.endswith("s") and text[-2].isupper():
        return text[:-1]
    return text


def short_key(text: str) -> str:
    """The form an acronym is stored under: plural 's' dropped.

    >>> short_key("LLMs"), short_key("DiTs"), short_key("GANs"), short_key("SSL")
    ('LLM', 'DiT', 'GAN', 'SSL')
    """
    return _strip_plural(text)


def _long_span_before(doc: Doc, paren: int, short: str) -> Span | None:
    """Find the long form in the words before `doc[paren]` (an opening parenthesis)."""
    window = min(len(short) + 5, len(short) * 2)
    # A long form in quotes ('the "Superpixel Sampling Network" (SSN)'): the closing quote
    # before the bracket ends it and the opening quote is the boundary of the walk below.
    end = paren - 1 if paren > 1 and doc[paren - 1].is_quote else paren
    start = end
    words = 0
    # Walk left to a boundary; the parser's sentence split is not trusted next to brackets.
    while start > 0 and words < window:
        token = doc[start - 1]
        if token.text in _BOUNDARY_TEXT or token.text in {".", "!", "?"} or token.is_quote:
            break
        start -= 1
        if not token.is_punct:
            words += 1
    if start == end:
        return None
    candidate = doc[start:end]
    long_text = find_best_long_form(short, candidate.text)
    if long_text is None:
        return None
    char_start = candidate.end_char - len(long_text)
    span = doc.char_span(char_start, candidate.end_char, alignment_mode="expand")
    if span is None or not any(any(c.isalpha() for c in t.text) for t in span):
        return None
    return span


def _long_span_after(doc: Doc, open_: int, close: int, short: str) -> Span | None:
    """The parenthesised words `doc[open_+1:close]` as the long form of `short`, if they fit."""
    inner = doc[open_ + 1 : close]
    if len(inner) < 2 or any(t.text in {";", ",", ":"} for t in inner):
        return None
    long_text = find_best_long_form(short, inner.text)
    if long_text is None or not inner.text.endswith(long_text):
        return None
    # The whole parenthesis must be the long form (no extra leading words).
    if long_text != inner.text:
        return None
    return inner


def _initials_span_before(doc: Doc, end: int, short: str) -> Span | None:
    """The long form before `doc[end]` of "long form or SF": "or" mostly joins two different
    things ("GANs or VAEs"), so the words must be capitalised as a name is or their
    initials spell `short` (function words skipped)."""
    letters = spelled(_strip_plural(short))
    long = _long_span_before(doc, end, letters) if end > 0 else None
    if long is None:
        return None
    words = [t.text for t in long if t.is_alpha and t.lower_ not in _SKIPPED]
    if initials_long_form(letters, long.text) == long.text or (
            len(words) > 1 and all(w[:1].isupper() for w in words)):
        return long
    return None


def find_definitions(doc: Doc) -> list[Definition]:
    """Every acronym definition in `doc`, in text order."""
    found: list[Definition] = []
    i = 0
    n = len(doc)
    while i < n:
        token = doc[i]
        if token.text == "(":
            close = next((j for j in range(i + 1, min(n, i + 14)) if doc[j].text == ")"), None)
            if close is not None and close > i + 1:
                inner = doc[i + 1 : close]
                if len(inner) == 1 and is_short_form(inner.text):
                    long = _long_span_before(doc, i, _strip_plural(inner.text))
                    if long is None:
                        long = _long_span_before(doc, i, inner.text)
                    if long is not None and not _is_evaluative(long):
                        found.append(Definition(inner, long))
                        i = close + 1
                        continue
                elif i > 0 and is_short_form(doc[i - 1].text):
                    long = _long_span_after(doc, i, close, _strip_plural(doc[i - 1].text))
                    if long is not None:
                        found.append(Definition(doc[i - 1 : i], long))
                        i = close + 1
                        continue
        elif token.lower_ == "or" and 0 < i < n - 1 and is_short_form(doc[i + 1].text):
            # "Augmented Angular Loss Incremental Classification or ALICE"
            long = _initials_span_before(doc, i - (doc[i - 1].text == ","), doc[i + 1].text)
            if long is not None and not _is_evaluative(long):
                found.append(Definition(doc[i + 1 : i + 2], long))
                i += 2
                continue
        elif token.text == "," and 0 < i < n - 2 and is_short_form(doc[i - 1].text):
            # "JEDi, the JEPA Embedding Distance" / "SAM, a.k.a. Segment Anything"
            j = i + 1
            if doc[j].lower_ in {"the", "a", "an"} or _AKA.match(doc[j].text):
                j += 1
                if j < n and doc[j].text == ".":
                    j += 1
            end = j
            while end < n and end - j < 8 and doc[end].text[:1].isupper() and doc[end].is_alpha:
                end += 1
            if end - j >= 2:
                inner = doc[j:end]
                long_text = find_best_long_form(_strip_plural(doc[i - 1].text), inner.text)
                if long_text == inner.text:
                    found.append(Definition(doc[i - 1 : i], inner))
        i += 1
    return found


def short_of(label: str, acronyms: dict[str, str]) -> str | None:
    """The short form `label` is (or is the plural of) among `acronyms`' keys, else None."""
    if label in acronyms:
        return label
    if label.endswith("s") and label[:-1] in acronyms:
        return label[:-1]
    return None
