"""Tokenizer rules that keep hyphenated model and method names whole.

spaCy's English infixes split at every hyphen between letters, so "OpenAI-o1-mini" becomes five
tokens and "Qwen2-72B-Instruct" three. A `token_match` keeps a hyphenated string whole when it
looks like a name: some part beyond the first character is upper-case or a digit
("GPT-4o", "Diff-PIC", "OOD-TV-IRM", "Llama3-70B-base", "ViT-B/16"). Ordinary compounds
("long-context", "Self-supervised") and names with a modifier suffix ("DEI-guided",
"Transformer-based") are still split, so the parser sees the words it was trained on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from spacy.language import Language

_PART = r"[A-Za-z0-9](?:[A-Za-z0-9.+/]*[A-Za-z0-9+])?"
_MAGNITUDE_PART = re.compile(r"^\d+(\.\d+)?[KMBTkmbt]?$")
_NAME = re.compile(rf"^{_PART}(?:-{{1,2}}{_PART})+$")
# Lower-case last parts that modify a name rather than belong to it.
MODIFIER_SUFFIXES = frozenset(
    """based like style guided driven designed aware free level scale wise specific agnostic
    only centric conditioned augmented enhanced informed inspired powered type generated
    induced assisted derived oriented related dependent independent invariant equivariant
    constrained regularized trained tuned finetuned pretrained initialized optimized
    compatible friendly efficient intensive sized shaped sensitive sparse dense
    """.split()
)


def is_name_token(text: str) -> bool:
    """Should this whitespace-free, hyphenated string stay one token?

    >>> [is_name_token(t) for t in ["OpenAI-o1-mini", "Qwen2-72B-Instruct", "Diff-PIC"]]
    [True, True, True]
    >>> is_name_token("OOD-TV-IRM."), is_name_token("non-Gaussianity")
    (False, False)
    >>> is_name_token("t-SNE"), is_name_token("7B-parameter"), is_name_token("Llama-3-8B")
    (True, False, True)
    >>> [is_name_token(t) for t in ["long-context", "Self-supervised", "DEI-guided", "1.29-1.92x"]]
    [False, False, False, False]
    """
    if not _NAME.match(text):
        return False
    parts = re.split(r"-{1,2}", text)
    if parts[-1].lower() in MODIFIER_SUFFIXES:
        return False  # "DEI-guided", "GNN-Guided", "Tree-Based"
    if all(p.replace(".", "").isdigit() or re.fullmatch(r"[\d.]+x?", p) for p in parts):
        return False  # number ranges such as 1.29-1.92x
    if parts[0].islower() and parts[0].isalpha():
        # "non-Gaussianity", "semi-Nash": a prefix on a word, not a name; but "t-SNE", "k-NN"
        return len(parts[0]) == 1 and any(c.isupper() for c in "".join(parts[1:]))
    if _MAGNITUDE_PART.match(parts[0]) and all(p.isalpha() and p.islower() for p in parts[1:]):
        return False  # "7B-parameter", "32K-token": a size compound
    tail = text[1:]
    return any(ch.isupper() or ch.isdigit() for ch in tail)


_MAGNITUDE = re.compile(r"^\d+(\.\d+)?[KMBT]$")


def install_name_tokens(nlp: Language) -> None:
    """Make `nlp`'s tokenizer keep name-like hyphenated strings whole (idempotent)."""
    tokenizer: Any = nlp.tokenizer  # spaCy's Tokenizer (typed as a plain callable)
    previous: Callable[[str], object] | None = tokenizer.token_match
    if getattr(previous, "_kg_names", False):
        return

    def token_match(text: str) -> bool:
        if is_name_token(text) or _MAGNITUDE.match(text):
            return True  # "GPT-4o" and "128K" stay whole
        return bool(previous(text)) if previous is not None else False

    token_match._kg_names = True  # type: ignore[attr-defined]
    tokenizer.token_match = token_match
