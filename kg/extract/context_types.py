"""How annotated papers type a span by the words around it (built by
scripts/build_context_types.py).

Writers signal a term's kind by the word before or after it: "via X", "using X", "with X"
mostly name methods, "for X" tasks, "on X" datasets or tasks, "X of" concepts.
`kg/data/context_types.tsv.gz` counts, for each word just before and just after an annotated
span of SciERC (train + dev) and SciREX (train), the spans of each type it stands next to;
SciREX's spans themselves are counted by type too ("submodular function minimization").
The type models read a candidate's neighbours through these counts: which type the
annotators of other papers gave to spans standing where its occurrences stand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from kg.extract.count_tables import count_table
from kg.extract.span_types import COLUMNS

TABLE = "context_types.tsv.gz"
# The types each source annotates (SciREX has no concept and no generic spans).
SOURCE_COLUMNS = {"scierc": COLUMNS, "scirex": COLUMNS[:4]}
SIDES = ("prev", "next")
START, END = "<s>", "</s>"
NAMES = (
    *(f"ctx_{source}_{side}_{c}" for source, cols in SOURCE_COLUMNS.items() for side in SIDES
      for c in (*cols, "n")),
    *(f"rx_span_{c}" for c in (*SOURCE_COLUMNS["scirex"], "n")),
)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_REACH = 60  # characters looked at on each side for the neighbouring word


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


def _shares(prefix: str, counts: dict[str, int], columns: Sequence[str]) -> dict[str, float]:
    total = sum(counts.get(c, 0) for c in columns)
    out = {f"{prefix}_{c}": counts.get(c, 0) / (total + 1) for c in columns}
    out[f"{prefix}_n"] = math.log1p(total)
    return out


def context_type_features(contexts: Sequence[tuple[str, str]], keys: Sequence[str],
                          ) -> dict[str, float]:
    """The features (`NAMES`) of a candidate whose occurrences stand between the
    `contexts` ((word before, word after) pairs, `neighbours`) and which is known by `keys`
    (its key, its short form): for each source and side, each type's share of the annotated
    spans next to that word (smoothed by one) and log(1 + their number), averaged over the
    occurrences; SciREX's counts of the span likewise."""
    f = dict.fromkeys(NAMES, 0.0)
    for source, columns in SOURCE_COLUMNS.items():
        for i, side in enumerate(SIDES):
            for context in contexts:
                found = _shares(f"ctx_{source}_{side}",
                                _counts(f"{source}:{side}:{context[i]}"), columns)
                for name, value in found.items():
                    f[name] += value / len(contexts)
    columns = SOURCE_COLUMNS["scirex"]
    span: dict[str, int] = {}
    for key in keys:
        for c, n in _counts(f"scirex:span:{key}").items():
            span[c] = span.get(c, 0) + n
    f.update(_shares("rx_span", span, columns))
    return f
