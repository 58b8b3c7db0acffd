"""Count tables shipped as package data: a gzipped TSV, a header line, then one row per key
with its integer counts (kg/data/span_types.tsv.gz, type_nouns.tsv.gz)."""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources


@cache
def count_table(filename: str) -> dict[str, tuple[int, ...]]:
    """Key -> counts of `kg/data/<filename>`, read once per process."""
    data = resources.files("kg").joinpath("data", filename).read_bytes()
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    table = {}
    for line in lines[1:]:
        key, *counts = line.split("\t")
        table[key] = tuple(int(c) for c in counts)
    return table


def count_rows(found: Mapping[str, Counter[str]], columns: Sequence[str]) -> list[str]:
    """The lines of a count table (header, then each key's counts in key order), as
    `scripts/build_*_types.py` write them; a key holding a tab or newline is left out."""
    rows = ["key\t" + "\t".join(columns)]
    rows += [key + "\t" + "\t".join(str(found[key][c]) for c in columns)
             for key in sorted(found) if "\t" not in key and "\n" not in key]
    return rows
