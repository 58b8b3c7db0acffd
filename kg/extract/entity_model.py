"""The trained scientific-entity recogniser (kg.ner) as a second opinion in extraction.

The model (SciERC's six labels, shipped in `kg/data/model/`) runs on the tokens the English
pipeline already made, so its spans line up with every other candidate;
`kg.extract.recogniser_labels` turns its labels into concept types (Generic spans are dropped).

A span categorizer normally scores every 1-8-token n-gram, which costs twice the English
pipeline; here it scores only the spans the rules propose (`suggestions`), which is all
extraction asks of it (does the model take this candidate for an entity, and of which type?)
and costs a fraction. `kg eval` scores the model with its own suggester.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Ops, get_current_ops
from thinc.types import Ragged

from kg.extract.recogniser import load_model, predicted_spans
from kg.extract.recogniser_labels import map_label
from kg.types import ConceptType

EXTRACTOR_MODEL = "entity-model"
_SUGGEST_KEY = "kg_suggestions"


def _suggested(docs: Iterable[Doc], *, ops: Ops | None = None) -> Ragged:
    """A spaCy span suggester that proposes the spans stored on each doc by `spans()`."""
    ops = ops or get_current_ops()
    spans: list[tuple[int, int]] = []
    lengths: list[int] = []
    for doc in docs:
        mine = doc.user_data.get(_SUGGEST_KEY, [])
        spans.extend(mine)
        lengths.append(len(mine))
    lengths_array = ops.asarray1i(lengths)
    if spans:
        return Ragged(ops.asarray2i(spans), lengths_array)
    return Ragged(ops.xp.zeros((0, 0), dtype="i"), lengths_array)


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
        return cls(load_model(path))

    @property
    def judges_suggestions(self) -> bool:
        """Whether the model judges only the suggested spans (a span categorizer) rather
        than tagging the whole text (NER)."""
        return self.nlp.has_pipe("spancat")

    def spans(
        self, docs: Sequence[Doc], suggestions: Sequence[Sequence[tuple[int, int]]] | None = None
    ) -> list[list[ModelSpan]]:
        """The typed spans of each doc (same tokenization, so token offsets carry over).

        `suggestions`: per doc, the token spans a span categorizer should judge (ignored by an
        NER model, which tags the whole text).
        """
        return [typed_spans(doc, raw)
                for doc, raw in zip(docs, self.raw_spans(docs, suggestions), strict=True)]

    def raw_spans(
        self, docs: Sequence[Doc], suggestions: Sequence[Sequence[tuple[int, int]]] | None = None
    ) -> list[list[RawSpan]]:
        """The model's own `(start token, end token, label)` spans of each doc, before the
        labels become concept types (what the parse cache keeps)."""
        inputs = [
            Doc(self.nlp.vocab, words=[t.text for t in doc],
                spaces=[bool(t.whitespace_) for t in doc])
            for doc in docs
        ]
        if suggestions is not None and self.judges_suggestions:
            for doc, spans in zip(inputs, suggestions, strict=True):
                doc.user_data[_SUGGEST_KEY] = list(spans)
            self.nlp.get_pipe("spancat").suggester = _suggested  # type: ignore[attr-defined]
        return [predicted_spans(tagged) for tagged in self.nlp.pipe(inputs)]


RawSpan = tuple[int, int, str]
"""A span as the model tags it: start token, end token, SciERC label."""


def typed_spans(doc: Doc, raw: Sequence[RawSpan]) -> list[ModelSpan]:
    """The model's spans with concept types (Generic and unmapped labels dropped)."""
    found = []
    for start, end, label in raw:
        ctype = map_label(label, doc[start:end].text)
        if ctype is not None:
            found.append(ModelSpan(start, end, ctype))
    return found
