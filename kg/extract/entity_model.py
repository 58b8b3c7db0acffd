"""The trained scientific-entity recogniser (kg.ner) as a candidate source for extraction.

The model (SciERC's six labels, shipped in `kg/data/model/`) runs on the tokens the English
pipeline already made, so its spans line up with every other candidate; `kg.ner.mapping`
turns its labels into concept types (Generic spans are dropped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kg.ner.mapping import map_label
from kg.types import ConceptType

EXTRACTOR_MODEL = "entity-model"


@dataclass(frozen=True, slots=True)
class ModelSpan:
    """A span the model tagged: token offsets into the extraction doc, mapped type."""

    start: int
    end: int
    ctype: ConceptType


class EntityModel:
    """Runs the trained entity pipeline over already tokenized docs."""

    def __init__(self, nlp: Language) -> None:
        self.nlp = nlp

    @classmethod
    def load(cls, path: str | Path | None = None) -> EntityModel:
        from kg.ner.model import load_model

        return cls(load_model(path))

    def spans(self, docs: Sequence[Doc]) -> list[list[ModelSpan]]:
        """The typed spans of each doc (same tokenization, so token offsets carry over)."""
        from kg.ner.model import predicted_spans

        inputs = [
            Doc(self.nlp.vocab, words=[t.text for t in doc],
                spaces=[bool(t.whitespace_) for t in doc])
            for doc in docs
        ]
        out: list[list[ModelSpan]] = []
        for doc, tagged in zip(docs, self.nlp.pipe(inputs), strict=True):
            found = []
            for start, end, label in predicted_spans(tagged):
                ctype = map_label(label, doc[start:end].text)
                if ctype is not None:
                    found.append(ModelSpan(start, end, ctype))
            out.append(found)
        return out
