"""Load the shipped entity pipeline and tag texts with it.

The pipeline lives in `kg/data/model/` (made by `kg train`); it is a blank English pipeline
(the same tokenizer rules as en_core_web_sm, so character offsets line up with paperkg's other
extractors) plus a trained `tok2vec` and `spancat` with SciERC's six labels. A faster `ner`
variant, a little less accurate, is in `kg/data/model_ner/` (NER_MODEL_DIR).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import ModelError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

MODEL_DIR = Path(__file__).resolve().parents[1] / "data" / "model"
# The faster NER variant (docs/MODEL.md): 0.584 vs 0.614 SciERC dev F1, ~3x faster.
NER_MODEL_DIR = MODEL_DIR.with_name("model_ner")
SPANS_KEY = "sc"


@dataclass(frozen=True, slots=True)
class TaggedSpan:
    """An entity the model found: characters `[start, end)` of the text, its SciERC label."""

    start: int
    end: int
    label: str
    text: str


def load_model(path: str | Path | None = None) -> Language:
    """Load a trained pipeline (default: the one shipped in the package), offline."""
    import spacy

    where = Path(path) if path is not None else MODEL_DIR
    if not (where / "config.cfg").is_file():
        raise ModelError(
            f"{where} holds no spaCy pipeline (config.cfg is missing); "
            "run `kg train` (or `make model`) to build one"
        )
    try:
        return spacy.load(where)
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"{where}: cannot load the entity pipeline ({exc}); retrain it with `kg train`"
        ) from exc


@lru_cache(maxsize=1)
def shipped_model() -> Language:
    """The shipped pipeline, loaded once per process."""
    return load_model()


def predicted_spans(doc: Doc) -> list[tuple[int, int, str]]:
    """The `(start token, end token, label)` of every entity a pipeline put on `doc`:
    its span-categorizer's spans when it has one, else `doc.ents`."""
    spans = doc.spans.get(SPANS_KEY, doc.ents)
    return sorted((s.start, s.end, s.label_) for s in spans)


def tag(
    texts: Iterable[str], nlp: Language | None = None, *, batch_size: int = 64
) -> Iterator[tuple[TaggedSpan, ...]]:
    """Tag each text with SciERC labels; one tuple of spans per text, in text order."""
    nlp = nlp if nlp is not None else shipped_model()
    for doc in nlp.pipe(texts, batch_size=batch_size):
        yield tuple(
            TaggedSpan(doc[s:e].start_char, doc[s:e].end_char, label, doc[s:e].text)
            for s, e, label in predicted_spans(doc)
        )


def entity_labels(nlp: Language) -> tuple[str, ...]:
    """The labels of a pipeline's entity component (`ner` or `spancat`)."""
    for name in ("ner", "spancat"):
        if name in nlp.pipe_names:
            return tuple(nlp.get_pipe(name).labels)  # type: ignore[attr-defined]
    raise ModelError(f"the pipeline has no ner or spancat component (it has {nlp.pipe_names})")
