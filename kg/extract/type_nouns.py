"""How other papers name a phrase's kind (built by scripts/build_type_nouns.py).

Writers say what a term is by the noun they put after it: "the summarization task", "the
task of summarization", "the FooBench benchmark", "a FooNet model", "the BLEU metric".
`kg/data/type_nouns.tsv.gz` counts, for each normalised phrase, the background abstracts (the
35k of ../shared/data/paperlists/, the gold abstracts left out) in which it stands so before a
noun of each kind. What the field calls a term in other papers is evidence for its type where
the paper at hand names no kind.
"""

from __future__ import annotations

import math

from kg.extract.count_tables import count_table

KINDS = ("Task", "Dataset", "Model", "Method", "Metric")
NAMES = (*(f"tn_{k}" for k in KINDS), "tn_n")

TABLE = "type_nouns.tsv.gz"


def type_noun_counts(key: str) -> tuple[int, ...]:
    """Background abstracts naming the phrase with this `norm_key` as each of `KINDS`."""
    return count_table(TABLE).get(key, (0,) * len(KINDS))


def type_noun_features(keys: list[str]) -> dict[str, float]:
    """The features (`NAMES`) of a candidate known by these keys (its key, its short form):
    each kind's share of the abstracts naming its kind (smoothed by one: one abstract says
    less than fifty) and log(1 + their number)."""
    counts = [sum(c) for c in zip(*(type_noun_counts(k) for k in keys), strict=True)] if keys \
        else [0] * len(KINDS)
    total = sum(counts)
    f = {f"tn_{kind}": n / (total + 1) for kind, n in zip(KINDS, counts, strict=True)}
    f["tn_n"] = math.log1p(total)
    return f
