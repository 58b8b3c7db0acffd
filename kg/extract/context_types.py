"""How annotated papers type a span by the words around it (built by
scripts/build_context_types.py).

Writers signal a term's kind by the word before or after it: "via X", "using X", "with X"
mostly name methods, "for X" tasks, "on X" datasets or tasks, "X of" concepts.
`kg/data/context_types.tsv.gz` counts, for each word just before and just after an annotated
span of SciERC (train + dev) and SciREX (train), the spans of each type it stands next to;
SciREX's spans themselves are counted by type too ("submodular function minimization").
The type models read a candidate's neighbours through these counts: which type the
annotators of other papers gave to spans standing where its occurrences stand.

A wider window says more about a name no vocabulary lists: "benchmark datasets with images
(NLVR2)", "a new dataset called SciNLI", "a denoising network we call MalleNet". The table also
counts, for each word among the `WINDOW` words before (after) an annotated span in its
sentence, the spans of each type it stands near; `window_type_features` weighs a candidate's
window words naive-Bayes fashion: for each type, the sum over the words of the log ratio of
the type's share among the spans near that word (smoothed towards the type's overall share
by `WINDOW_PRIOR` spans) to its overall share, averaged over the candidate's occurrences.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import islice, repeat
from operator import add, truediv

from kg.extract.count_tables import count_table
from kg.extract.span_types import COLUMNS

TABLE = "context_types.tsv.gz"
# The types each source annotates (SciREX has no concept and no generic spans).
SOURCE_COLUMNS = {"scierc": COLUMNS, "scirex": COLUMNS[:4]}
SIDES = ("prev", "next")
START, END = "<s>", "</s>"
WINDOW = 4  # words looked at on each side of a span for `window_type_features`
WINDOW_PRIOR = 5.0  # spans' worth of the overall type shares a window word's counts start from
WINDOW_TOTAL = "all"  # the row of every annotated span of a source, by type ("<source>:win:all")
WINDOW_NAMES = tuple(f"win_{source}_{c}" for source, cols in SOURCE_COLUMNS.items()
                     for c in cols)
NAMES = (
    *(f"ctx_{source}_{side}_{c}" for source, cols in SOURCE_COLUMNS.items() for side in SIDES
      for c in (*cols, "n")),
    *(f"rx_span_{c}" for c in (*SOURCE_COLUMNS["scirex"], "n")),
    *WINDOW_NAMES,
)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_REACH = 60  # characters looked at on each side for the neighbouring word
_WINDOW_REACH = 80  # characters tokenized first before a span for its window (`occurrence_context`)


def _counts(key: str) -> dict[str, int]:
    row = count_table(TABLE).get(key)
    return dict(zip(COLUMNS, row, strict=True)) if row else {}


def neighbours(text: str, start: int, end: int, sent_start: int = 0,
               sent_end: int | None = None) -> tuple[str, str]:
    """The lower-cased word (or punctuation mark) just before text[start:end] and just after
    it, within its sentence [sent_start, sent_end) ("<s>" / "</s>" at the sentence's edge).

    >>> neighbours("We solve it via Foo Bar, fast.", 16, 23)
    ('via', ',')
    """
    stop = len(text) if sent_end is None else sent_end
    before = _TOKEN.findall(text[max(sent_start, start - _REACH):start])
    after = _TOKEN.findall(text[end:min(stop, end + _REACH)])
    return (before[-1].lower() if before else START, after[0].lower() if after else END)


def occurrence_context(text: str, start: int, end: int, sent_start: int,
                       sent_end: int) -> tuple[tuple[str, str], Window]:
    """`neighbours` of one occurrence and its window: the `WINDOW` words (or punctuation
    marks) before text[start:end] and after it within its sentence [sent_start, sent_end),
    lower-cased, from one reading of the words around it.

    >>> occurrence_context("Results on the new Foo Set (ours), as shown.", 19, 26, 0, 44)
    (('new', '('), (('results', 'on', 'the', 'new'), ('(', 'ours', ')', ',')))
    """
    before, after = _window_tokens(text, start, end, sent_start, sent_end)
    # The neighbours are the window's nearest words (`START`/`END` when it has none), but
    # for a word reaching beyond `_REACH`, which `neighbours` cuts: it is asked then.
    if ((before and before[-1].start() < max(sent_start, start - _REACH))
            or (after and after[0].end() > min(sent_end, end + _REACH))):
        near = neighbours(text, start, end, sent_start, sent_end)
    else:
        near = (before[-1].group().lower() if before else START,
                after[0].group().lower() if after else END)
    return near, (tuple(m.group().lower() for m in before),
                  tuple(m.group().lower() for m in after))


def _window_tokens(text: str, start: int, end: int, sent_start: int, sent_end: int,
                   ) -> tuple[list[re.Match[str]], list[re.Match[str]]]:
    """The `WINDOW` tokens before text[start:end] and after it within its sentence."""
    before: list[re.Match[str]] = []
    if start > sent_start:
        # The tokens of a stretch ending at `start` are the sentence's, but for the first one
        # when the stretch begins inside a word: with more than `WINDOW` of them the last ones
        # are the sentence's own (a long sentence is not tokenized from its start each time).
        reach = max(sent_start, start - _WINDOW_REACH)
        before = list(_TOKEN.finditer(text, reach, start))
        if reach > sent_start and len(before) <= WINDOW:
            before = list(_TOKEN.finditer(text, sent_start, start))
        before = before[-WINDOW:]
    return before, list(islice(_TOKEN.finditer(text, end, sent_end), WINDOW))


def _shares(prefix: str, counts: dict[str, int], columns: Sequence[str]) -> dict[str, float]:
    total = sum(counts.get(c, 0) for c in columns)
    out = {f"{prefix}_{c}": counts.get(c, 0) / (total + 1) for c in columns}
    out[f"{prefix}_n"] = math.log1p(total)
    return out


# The feature names of `_context_shares`'s values, by (source, side), in its order.
_SHARE_NAMES = {(source, side): tuple(f"ctx_{source}_{side}_{c}" for c in (*cols, "n"))
                for source, cols in SOURCE_COLUMNS.items() for side in SIDES}


@lru_cache(maxsize=1 << 16)
def _context_shares(source: str, side: str, word: str) -> tuple[float, ...]:
    """The values of `_shares` of the spans next to `word`, named by `_SHARE_NAMES` (a word
    is met again and again across papers: computed once; the names are not kept per word, as
    the cache of a worker process holds tens of thousands of words)."""
    values = tuple(_shares(f"ctx_{source}_{side}", _counts(f"{source}:{side}:{word}"),
                           SOURCE_COLUMNS[source]).values())
    return values if any(values) else _NO_SHARES[source]  # most words: the table lacks them


_NO_SHARES = {source: (0.0,) * (len(cols) + 1) for source, cols in SOURCE_COLUMNS.items()}
# The names of the neighbour-word features, in `NAMES`' order (source, then side).
_CONTEXT_NAMES = tuple(name for source in SOURCE_COLUMNS for side in SIDES
                       for name in _SHARE_NAMES[source, side])


@lru_cache(maxsize=1 << 16)
def _side_shares(side: str, word: str) -> tuple[tuple[float, ...], ...]:
    """`_context_shares` of `word` on `side`, per source (in `SOURCE_COLUMNS`' order)."""
    return tuple(_context_shares(source, side, word) for source in SOURCE_COLUMNS)


def context_type_features(contexts: Sequence[tuple[str, str]], keys: Sequence[str],
                          ) -> dict[str, float]:
    """The features (`NAMES`) of a candidate whose occurrences stand between the
    `contexts` ((word before, word after) pairs, `neighbours`) and which is known by `keys`
    (its key, its short form): for each source and side, each type's share of the annotated
    spans next to that word (smoothed by one) and log(1 + their number), averaged over the
    occurrences; SciREX's counts of the span likewise."""
    n = len(contexts)
    # Summed per name in the occurrences' order (the same floats in every version).
    sums = [0.0] * len(_CONTEXT_NAMES)
    for before, after in contexts:
        prev, nxt = _side_shares("prev", before), _side_shares("next", after)
        sums = list(map(add, sums, map(truediv, (*prev[0], *nxt[0], *prev[1], *nxt[1]),
                                       repeat(n))))
    f = dict(zip(_CONTEXT_NAMES, sums, strict=True))
    columns = SOURCE_COLUMNS["scirex"]
    span: dict[str, int] = {}
    for key in keys:
        for c, count in _counts(f"scirex:span:{key}").items():
            span[c] = span.get(c, 0) + count
    f.update(_shares("rx_span", span, columns))
    f.update(dict.fromkeys(WINDOW_NAMES, 0.0))
    return f


Window = tuple[tuple[str, ...], tuple[str, ...]]
"""The lower-cased words (and punctuation marks) before and after one occurrence."""


def window_type_features(windows: Sequence[Window]) -> dict[str, float]:
    """The features (`WINDOW_NAMES`) of a candidate whose occurrences have these `windows`:
    per source and type, the naive-Bayes evidence of the window words for the type (see the
    module docstring), averaged over the occurrences (0 for a word the table lacks)."""
    if not windows:
        return dict.fromkeys(WINDOW_NAMES, 0.0)
    n = len(windows)
    # Summed per name in the windows' and words' order (the same floats in every version);
    # a word a source lacks adds 0.0 there, which changes no sum.
    sums = [0.0] * len(WINDOW_NAMES)
    for before, after in windows:
        for side, words in (("win_prev", before), ("win_next", after)):
            for word in dict.fromkeys(words):  # once each, in order: sums are
                # the same in every process (a set's order follows the hash seed)
                evidence = _window_evidences(side, word)
                if evidence:
                    sums = list(map(add, sums, map(truediv, evidence, repeat(n))))
    return dict(zip(WINDOW_NAMES, sums, strict=True))


@lru_cache(maxsize=1 << 16)
def _window_evidences(side: str, word: str) -> tuple[float, ...]:
    """`_window_evidence` of every source, in the order of `WINDOW_NAMES` (0.0 where a source
    lacks the word; nothing when every source does)."""
    values = [_window_evidence(source, side, word) for source in SOURCE_COLUMNS]
    if not any(values):
        return ()
    return tuple(v for found, cols in zip(values, SOURCE_COLUMNS.values(), strict=True)
                 for v in (found or (0.0,) * len(cols)))


# The feature names of `_window_evidence`'s values, by source, in its order.
_WINDOW_SOURCE_NAMES = {source: tuple(f"win_{source}_{c}" for c in cols)
                        for source, cols in SOURCE_COLUMNS.items()}


@lru_cache(maxsize=1 << 16)
def _window_evidence(source: str, side: str, word: str) -> tuple[float, ...]:
    """Per type of `source` (named by `_WINDOW_SOURCE_NAMES`), log(the type's smoothed share
    among the spans `word` stands near on `side` / its overall share); nothing for a word the
    table lacks (a word is met again and again across papers: computed once)."""
    columns = SOURCE_COLUMNS[source]
    total = _counts(f"{source}:win:{WINDOW_TOTAL}")
    spans = sum(total.get(c, 0) for c in columns)
    counts = _counts(f"{source}:{side}:{word}")
    near = sum(counts.get(c, 0) for c in columns)
    if not spans or not near:
        return ()
    prior = {c: max(total.get(c, 0), 1) / spans for c in columns}
    return tuple(math.log((counts.get(c, 0) + WINDOW_PRIOR * prior[c]) / (near + WINDOW_PRIOR)
                          / prior[c])
                 for c in columns)
