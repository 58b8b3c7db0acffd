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
from kg.types import Concept, ConceptType

RULE = "spelling-variant"
HEAD_RULE = "elided-head"
WORD_RULE = "elided-word"
_HEADS = ("model",)


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


def elided_heads(concepts: Mapping[str, Concept], papers: Mapping[str, int]) -> dict[str, str]:
    """Key -> the key it joins, for a Model named with and without its head noun ("diffusion"
    and "diffusion model", "Transformer" and "transformer model"): both nodes typed Model by
    their papers; the name fewer papers use joins the other (on a tie, the full name). A
    "language" typed Concept stays apart from "language model".

    >>> c = {k: Concept(k, k, ConceptType.MODEL) for k in ["diffusion", "diffusion model",
    ...                                                    "transformer", "transformer model"]}
    >>> elided_heads(c, {"diffusion": 12, "diffusion model": 124, "transformer": 69,
    ...                  "transformer model": 5})
    {'diffusion': 'diffusion model', 'transformer model': 'transformer'}
    """
    out: dict[str, str] = {}
    for key, concept in concepts.items():
        if concept.ctype is not ConceptType.MODEL:
            continue
        for head in _HEADS:
            full = concepts.get(f"{key} {head}")
            if full is None or full.ctype is not ConceptType.MODEL:
                continue
            if papers.get(full.key, 0) >= papers.get(key, 0):
                out[key] = full.key
            else:
                out[full.key] = key
    return out


def elided_neural(concepts: Mapping[str, Concept], papers: Mapping[str, int]) -> dict[str, str]:
    """Key -> the key it joins, for a network named with and without "neural" ("convolutional
    network" and "convolutional neural network", "deep network" and "deep neural network"):
    in a paper about learning a network is a neural network. Both nodes typed Model; the name
    fewer papers use joins the other (on a tie, the full name). Kept apart when the papers
    abbreviate the two differently and never alike ("Bayesian network" BN, "Bayesian neural
    network" BNN: two concepts).

    >>> c = {k: Concept(k, k, ConceptType.MODEL, acronyms=a) for k, a in [
    ...     ("convolutional network", ("CNN",)), ("convolutional neural network", ("CNN",)),
    ...     ("deep network", ()), ("deep neural network", ("DNN",)),
    ...     ("bayesian network", ("BN",)), ("bayesian neural network", ("BNN",))]}
    >>> elided_neural(c, {"convolutional network": 153, "convolutional neural network": 1668,
    ...                   "deep network": 337, "deep neural network": 1243})
    {'convolutional network': 'convolutional neural network', 'deep network': 'deep neural network'}
    """
    out: dict[str, str] = {}
    for key, concept in concepts.items():
        if not key.endswith(" neural network") or concept.ctype is not ConceptType.MODEL:
            continue
        short = concepts.get(key.removesuffix(" neural network") + " network")
        if short is None or short.ctype is not ConceptType.MODEL:
            continue
        mine = {a.casefold() for a in concept.acronyms}
        theirs = {a.casefold() for a in short.acronyms}
        if mine and theirs and not mine & theirs:
            continue
        if papers.get(key, 0) >= papers.get(short.key, 0):
            out[short.key] = key
        else:
            out[key] = short.key
    return out
