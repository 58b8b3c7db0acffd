"""Where annotators draw a term's edges, word by word (built by scripts/build_termhood.py).

SciERC (train + dev) annotates every scientific term of 400 AI abstracts and SciREX (train)
every method, task, dataset and metric of 306 full ML papers, so their words say how
term-like they are: in SciREX "pooling" lies inside an annotated span in 1,214 of its 1,360
occurrences and ends most of them, while "modern" stands just before a span 48 times and
starts none ("modern [neural networks]"), and "detailed" is outside spans 169 times out of
171. `kg/data/termhood.tsv.gz` counts, per source and normalised word ("scirex:pooling"),
how often it starts a span, lies inside one after its first word, ends one, stands just
before one, and occurs outside every span. The accept model reads the rates of a
candidate's first and last words: a candidate starting with a word annotators leave out of
their spans, or ending with one that rarely ends a term, is less often a concept of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from kg.extract.count_tables import count_table

TABLE = "termhood.tsv.gz"
COLUMNS = ("start", "inside", "end", "before", "outside")
SOURCES = ("scierc", "scirex")
_PER_SOURCE = ("first_starts", "first_in", "first_n", "last_ends", "last_in", "last_n",
               "min_in")
NAMES = tuple(f"th_{source}_{name}" for source in SOURCES for name in _PER_SOURCE)


def word_counts(source: str, word: str) -> dict[str, int]:
    """The counts (`COLUMNS`) of one normalised word in one source; zeros if it never has it
    (or has it once)."""
    row = count_table(TABLE).get(f"{source}:{word}")
    return dict(zip(COLUMNS, row, strict=True)) if row else dict.fromkeys(COLUMNS, 0)


def _in_share(c: dict[str, int]) -> float:
    inside = c["start"] + c["inside"]
    return inside / (inside + c["outside"] + 1)


def termhood_features(words: Sequence[str]) -> dict[str, float]:
    """The features (`NAMES`) of a candidate made of the normalised `words` (its key's
    words), per source: for its first word, the share of its occurrences next to or at a
    span's start that start the span and the share of all its occurrences inside spans; for its last
    word, the share of its in-span occurrences that end the span and its in-span share;
    the least in-span share of any word; log(1 + occurrences) of the first and last word.
    Shares are smoothed by one, so a word seen once says little."""
    if not words:
        return dict.fromkeys(NAMES, 0.0)
    f: dict[str, float] = {}
    for source, names in _SOURCE_NAMES:
        stats = [_word_rates(source, w) for w in words]
        first, last = stats[0], stats[-1]
        f.update(zip(names, (first.starts, first.inside, first.n, last.ends, last.inside,
                             last.n, min(s.inside for s in stats)), strict=True))
    return f


class _Rates(NamedTuple):
    starts: float  # of its occurrences next to or at a span's start, the share starting it
    inside: float  # the share of its occurrences inside spans
    n: float  # log(1 + its occurrences)
    ends: float  # of its in-span occurrences, the share ending the span


_SOURCE_NAMES = tuple((source, tuple(f"th_{source}_{name}" for name in _PER_SOURCE))
                      for source in SOURCES)


@lru_cache(maxsize=1 << 16)
def _word_rates(source: str, word: str) -> _Rates:
    """The rates of one word in one source (a word is met again and again: computed once)."""
    c = word_counts(source, word)
    return _Rates(c["start"] / (c["start"] + c["before"] + 1), _in_share(c),
                  math.log1p(c["start"] + c["inside"] + c["outside"]),
                  c["end"] / (c["start"] + c["inside"] + 1))
