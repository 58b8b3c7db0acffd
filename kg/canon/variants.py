"""Spelling variants of one concept key: "pre-trained language model" / "pretrained language
models", "frames per second" / "frame per second", "multi-modal" / "multimodal",
"language modelling" / "language modeling".

`kg.normalize.norm_key` folds case, separators and the last word's plural; two keys that still
differ only by where words are split or by the plural of an inner word are one concept. The
last word is as `norm_key` left it: a final capital "S" is a letter of a name ("DELTAS" is not
the plural of "Delta", "DADS" not of "DAD"). Each group of such keys is named by its key used in
the most papers (then the alphabetically first), so the node's IRI is the one most of its
papers already had.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping

from kg.normalize import singularize
from kg.types import Concept, ConceptType

RULE = "spelling-variant"
HEAD_RULE = "elided-head"
WORD_RULE = "elided-word"
_HEADS = ("model",)
# British "-elling/-elled/-eller" ("modelling", "labelled"); two keys are still one concept only
# where the corpus has both spellings.
_BRITISH_LL = re.compile(r"ell(ing|ed|er)$")


def compact(key: str) -> str:
    """Every inner word singular, the spaces gone; the last word as the key has it (`norm_key`
    already folded it where it was written as a plural).

    >>> compact("pre trained language model") == compact("pretrained language model")
    True
    >>> compact("frames per second") == compact("frame per second")
    True
    >>> compact("analysis"), compact("multi modal"), compact("deltas") == compact("delta")
    ('analysis', 'multimodal', False)
    >>> compact("language modelling") == compact("language modeling")
    True
    >>> compact("labelled data") == compact("labeled data")
    True
    """
    *inner, last = key.split(" ")
    words = [*(singularize(word) for word in inner), last]
    return "".join(_BRITISH_LL.sub(r"el\1", word) for word in words)


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


def network_form(key: str) -> str:
    """A network's name with "neural" and the clipped head "net" folded: the key every way of
    writing one network shares ("deep neural net", "deep net", "deep network" -> "deep
    network"); other keys as they are.

    >>> network_form("generative adversarial net"), network_form("neural net")
    ('generative adversarial network', 'neural network')
    >>> network_form("bayesian neural network"), network_form("subnet"), network_form("u net")
    ('bayesian network', 'subnet', 'u network')
    """
    if key.endswith(" net") or key == "net":
        key += "work"
    if key.endswith(" neural network"):
        key = key.removesuffix(" neural network") + " network"
    return key


def elided_neural(concepts: Mapping[str, Concept], papers: Mapping[str, int],
                  abbreviations: Mapping[str, Mapping[str, int]]) -> dict[str, str]:
    """Key -> the key it joins, for a network named with and without "neural", or with the
    head "net" for "network" ("convolutional network" and "convolutional neural network",
    "deep network" and "deep neural network", "generative adversarial nets" and "... networks"):
    in a paper about learning a network is a neural network. All typed Model; each name joins
    the one most papers use (on a tie, the longer key: the full name).

    `abbreviations` holds, per key, how many papers abbreviate it by each short form
    (case-folded). Two names stay apart when each is abbreviated by a short form of its own as
    a convention of its papers: "Bayesian network" BN, "Bayesian neural network" BNN are two
    concepts. A convention is more likely than not by the rule of succession, as for acronym
    senses (`kg.canon.senses`): of the papers abbreviating a name, those using a short form the
    other name never has number more than half of them plus one — the extra one stands for a
    paper abbreviating it as the other name. One paper's "deep network (DN)" is its own habit,
    not a second concept beside "deep neural network" (DNN).

    >>> c = {k: Concept(k, k, ConceptType.MODEL) for k in [
    ...     "convolutional network", "convolutional neural network", "deep network",
    ...     "deep neural network", "bayesian network", "bayesian neural network"]}
    >>> counts = {"convolutional network": 153, "convolutional neural network": 1668,
    ...           "deep network": 337, "deep neural network": 1243, "bayesian network": 90,
    ...           "bayesian neural network": 82}
    >>> short = {"deep network": {"dn": 1}, "deep neural network": {"dnn": 300},
    ...          "bayesian network": {"bn": 6}, "bayesian neural network": {"bnn": 20}}
    >>> elided_neural(c, counts, short)
    {'convolutional network': 'convolutional neural network', 'deep network': 'deep neural network'}
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for key, concept in concepts.items():
        form = network_form(key)
        if concept.ctype is ConceptType.MODEL and form.endswith("network"):
            groups[form].append(key)
    out: dict[str, str] = {}
    for keys in groups.values():
        if len(keys) < 2:
            continue
        target = min(keys, key=lambda k: (-papers.get(k, 0), -len(k), k))
        for key in keys:
            if key != target and not _abbreviated_apart(abbreviations.get(key, {}),
                                                        abbreviations.get(target, {})):
                out[key] = target
    return dict(sorted(out.items()))


def _abbreviated_apart(mine: Mapping[str, int], theirs: Mapping[str, int]) -> bool:
    """Whether each of two names has a short form of its own as its papers' convention (see
    `elided_neural`): more likely than not by the rule of succession, on both sides."""
    def own(one: Mapping[str, int], other: Mapping[str, int]) -> bool:
        apart = sum(n for short, n in one.items() if short not in other)
        return apart / (sum(one.values()) + 1) > 0.5

    return bool(mine) and bool(theirs) and own(mine, theirs) and own(theirs, mine)
