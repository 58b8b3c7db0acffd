"""Spelling variants of one concept key: "pre-trained language model" / "pretrained language
models", "frames per second" / "frame per second", "multi-modal" / "multimodal".

`kg.normalize.norm_key` folds case, separators and the last word's plural; two keys that still
differ only by where words are split or by the plural of an inner word are one concept. Each
group of such keys is named by its key used in the most papers (then the alphabetically first),
so the node's IRI is the one most of its papers already had.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from kg.normalize import singularize

RULE = "spelling-variant"


def compact(key: str) -> str:
    """Every word singular, the spaces gone.

    >>> compact("pre trained language models") == compact("pretrained language model")
    True
    >>> compact("frames per second") == compact("frame per second")
    True
    >>> compact("analysis"), compact("multi modal")
    ('analysis', 'multimodal')
    """
    return "".join(singularize(word) for word in key.split(" "))


def variant_map(papers_per_key: Mapping[str, int]) -> dict[str, str]:
    """Key -> the key of its group, for every key that is not its group's name."""
    groups: dict[str, list[str]] = defaultdict(list)
    for key in papers_per_key:
        groups[compact(key)].append(key)
    out: dict[str, str] = {}
    for keys in groups.values():
        if len(keys) < 2:
            continue
        best = min(keys, key=lambda k: (-papers_per_key[k], k))
        out.update({k: best for k in keys if k != best})
    return out
