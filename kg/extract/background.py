"""Background statistics from 35k real ML abstracts (built by scripts/build_lexicon.py).

`word_count` and `phrase_count` give the number of abstracts that contain a word or a
normalised phrase: phrases other papers use too are established terms rather than one-off
descriptions, and a general adjective bound to its noun in many papers ("large language")
belongs to the term.
"""

from __future__ import annotations

import gzip
from functools import cache
from importlib import resources


def _read(name: str) -> tuple[dict[str, int], int]:
    data = resources.files("kg").joinpath("data", name).read_bytes()
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    docs = int(lines[0].split("\t")[1])
    table: dict[str, int] = {}
    for line in lines[1:]:
        key, _, count = line.partition("\t")
        table[key] = int(count)
    return table, docs


@cache
def lexicon() -> dict[str, int]:
    """Word (lower-case) -> number of abstracts containing it."""
    return _read("lexicon.tsv.gz")[0]


@cache
def _phrases() -> tuple[dict[str, int], int]:
    return _read("phrases.tsv.gz")


@cache
def _docs() -> int:
    return _read("lexicon.tsv.gz")[1]


def word_count(word: str) -> int:
    """Number of background abstracts containing `word` (case-insensitive)."""
    return lexicon().get(word.lower(), 0)


def phrase_count(key: str) -> int:
    """Number of background abstracts containing the phrase with this `norm_key`."""
    return _phrases()[0].get(key, 0)
