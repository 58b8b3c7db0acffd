"""Standard entity scoring: micro precision/recall/F1 on exact span and type, per type.

A predicted entity counts only when its boundaries and label both equal a gold entity's (the
CoNLL-2003 / SciERC convention). Spans are compared as character offsets, so a pipeline may
read the text with its own tokenizer and still be scored against the corpus's tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg.eval.corpora import TDMSCI_LABELS, CorpusFormat, GoldDoc, detect_format, read_gold
from kg.extract.recogniser import load_model, predicted_spans
from kg.extract.recogniser_labels import map_label
from kg.types import ConceptType

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

# paperkg types TDMSci annotates, by their TDMSci names.
_PAPERKG_TO_TDMSCI = {
    ConceptType.TASK: "TASK",
    ConceptType.DATASET: "DATASET",
    ConceptType.METRIC: "METRIC",
}

Triple = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class TypeScore:
    """Counts for one label (or all): true positives, false positives, false negatives."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True, slots=True)
class EntityReport:
    """Entity scores on one corpus: per label and micro-averaged over all labels."""

    source: str
    docs: int
    by_type: dict[str, TypeScore] = field(default_factory=dict)

    @property
    def micro(self) -> TypeScore:
        return TypeScore(
            tp=sum(s.tp for s in self.by_type.values()),
            fp=sum(s.fp for s in self.by_type.values()),
            fn=sum(s.fn for s in self.by_type.values()),
        )

    def table(self) -> str:
        """A plain-text table: one row per label, then the micro average.

        >>> r = EntityReport("x", 1, {"Task": TypeScore(tp=3, fp=1, fn=1)})
        >>> print(r.table())
        x (1 docs): entity micro P/R/F1, exact span + type
        type   gold  pred    tp      P      R     F1
        Task      4     4     3  0.750  0.750  0.750
        ALL       4     4     3  0.750  0.750  0.750
        """
        width = max([len("type"), *(len(t) for t in self.by_type)])
        lines = [
            f"{self.source} ({self.docs} docs): entity micro P/R/F1, exact span + type",
            f"{'type':<{width}}  {'gold':>5} {'pred':>5} {'tp':>5} {'P':>6} {'R':>6} {'F1':>6}",
        ]
        rows = [*sorted(self.by_type.items()), ("ALL", self.micro)]
        for name, s in rows:
            lines.append(
                f"{name:<{width}}  {s.tp + s.fn:>5} {s.tp + s.fp:>5} {s.tp:>5} "
                f"{s.precision:>6.3f} {s.recall:>6.3f} {s.f1:>6.3f}"
            )
        return "\n".join(lines)


def score_entities(
    gold: Iterable[Iterable[Triple]], predicted: Iterable[Iterable[Triple]], *, source: str = ""
) -> EntityReport:
    """Score predicted against gold entities, document by document.

    Each document is a collection of `(start, end, label)` (token or character offsets, the
    same kind on both sides); duplicates count once.

    >>> gold, pred = [(0, 2, "Task"), (3, 4, "Method")], [(0, 2, "Task"), (3, 5, "Method")]
    >>> r = score_entities([gold], [pred])
    >>> r.by_type["Method"], round(r.micro.f1, 3)
    (TypeScore(tp=0, fp=1, fn=1), 0.5)
    """
    counts: dict[str, Counter[str]] = {}
    docs = 0
    for gold_doc, pred_doc in zip(gold, predicted, strict=True):
        docs += 1
        g, p = set(gold_doc), set(pred_doc)
        for triples, key in ((g & p, "tp"), (p - g, "fp"), (g - p, "fn")):
            for _, _, label in triples:
                counts.setdefault(label, Counter())[key] += 1
    by_type = {label: TypeScore(c["tp"], c["fp"], c["fn"]) for label, c in sorted(counts.items())}
    return EntityReport(source, docs, by_type)


def evaluate_entities(
    nlp_or_model_path: Language | str | Path,
    gold_path: str | Path,
    *,
    fmt: CorpusFormat | str | None = None,
    pretokenized: bool = False,
) -> EntityReport:
    """Run a pipeline on an annotated corpus (SciERC JSON or TDMSci CoNLL) and score it.

    By default the pipeline reads each document's text (the corpus tokens joined by their
    spacing) with its own tokenizer, as it does in production, and a predicted entity counts
    when its characters are exactly a gold entity's and its label is the same. With
    `pretokenized=True` it tags the corpus's own tokens instead. Entities are `doc.ents`, or the
    spans of a `spancat` component. On TDMSci, SciERC labels go through `map_label` and only
    Task, Dataset and Metric are kept (as TASK, DATASET, METRIC): TDMSci annotates only those.
    """
    gold_path = Path(gold_path)
    kind = CorpusFormat(fmt) if fmt is not None else detect_format(gold_path)
    gold_docs = read_gold(gold_path, fmt=kind)
    nlp = (
        load_model(nlp_or_model_path)
        if isinstance(nlp_or_model_path, str | Path)
        else nlp_or_model_path
    )
    inputs = _bare_docs(gold_docs, nlp) if pretokenized else (d.text for d in gold_docs)
    predicted = []
    for doc in nlp.pipe(inputs):
        triples = []
        for start, end, label in predicted_spans(doc):
            span = doc[start:end]
            if kind is CorpusFormat.TDMSCI:
                label = _tdmsci_label(label, span.text)
            if label:
                triples.append((span.start_char, span.end_char, label))
        predicted.append(triples)
    gold = [d.char_entities() for d in gold_docs]
    return score_entities(gold, predicted, source=str(gold_path))


def _tdmsci_label(label: str, text: str) -> str:
    """A SciERC label as TDMSci would have it, through paperkg's type mapping (a Material is
    a DATASET only when `map_label` calls it a Dataset); "" when TDMSci has no such type."""
    if label in TDMSCI_LABELS:
        return label
    return _PAPERKG_TO_TDMSCI.get(map_label(label, text), "")  # type: ignore[arg-type]


def _bare_docs(gold_docs: list[GoldDoc], nlp: Language) -> Iterator[Doc]:
    from spacy.tokens import Doc

    for d in gold_docs:
        yield Doc(
            nlp.vocab, words=list(d.words), spaces=list(d.spaces), sent_starts=list(d.sent_starts)
        )
