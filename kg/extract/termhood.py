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
    f = dict.fromkeys(NAMES, 0.0)
    if not words:
        return f
    for source in SOURCES:
        first, last = word_counts(source, words[0]), word_counts(source, words[-1])
        in_span = [_in_share(word_counts(source, w)) for w in words]
        f.update({
            f"th_{source}_first_starts": first["start"] / (first["start"] + first["before"] + 1),
            f"th_{source}_first_in": in_span[0],
            f"th_{source}_first_n": math.log1p(first["start"] + first["inside"]
                                               + first["outside"]),
            f"th_{source}_last_ends": last["end"] / (last["start"] + last["inside"] + 1),
            f"th_{source}_last_in": in_span[-1],
            f"th_{source}_last_n": math.log1p(last["start"] + last["inside"] + last["outside"]),
            f"th_{source}_min_in": min(in_span),
        })
    return f
