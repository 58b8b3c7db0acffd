"""Score the relation patterns on SciERC's gold entities (the relation step alone).

SciERC (Luan et al., EMNLP 2018) annotates relations between entity spans of one sentence;
`USED-FOR(a, b)` means a is used for b, `COMPARE(a, b)` compares a with b, `EVALUATE-FOR(a, b)`
means a evaluates b. Each document is parsed on its own tokens and sentences by the extraction
pipeline, its gold entities become the mentions, and
`kg.extract.relation_mentions.doc_relations` runs on them. Our relations map onto SciERC's labels:

- usedFor(a, b) -> USED-FOR(a, b); basedOn(a, b) -> USED-FOR(b, a) (b is used for a);
- comparedWith(a, b), outperforms(a, b) -> COMPARE(a, b) (also scored ignoring direction:
  SciERC's COMPARE is symmetric and its annotated order is not consistent);
- evaluatedOn(a, d) -> EVALUATE-FOR(d, a).

Scores are micro precision/recall/F1 over (head span, tail span, label) triples.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputError
from kg.eval.corpora import GoldDoc, read_scierc
from kg.extract.nlp import load_nlp
from kg.extract.relation_mentions import Anchor, doc_relations
from kg.types import ConceptType, RelationType

LABELS = ("USED-FOR", "COMPARE", "EVALUATE-FOR")
# SciERC labels -> paperkg types for the typed run. Generic spans ("this method", "the
# approach", "it") are mostly methods; the extractor never proposes them as concepts.
SCIERC_TYPES = {
    "Method": ConceptType.METHOD,
    "Task": ConceptType.TASK,
    "Material": ConceptType.DATASET,
    "Metric": ConceptType.METRIC,
    "OtherScientificTerm": ConceptType.CONCEPT,
    "Generic": ConceptType.METHOD,
}
# Penn Treebank escapes in SciERC's tokens, restored so that the parser sees the characters.
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}

Pair = tuple[int, int, int, int]  # head start, head end, tail start, tail end (tokens, [ ))


@dataclass
class Score:
    """Counts for one label; precision, recall and F1 from them."""

    tp: int = 0
    predicted: int = 0
    gold: int = 0

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class RelationReport:
    """Scores by label (and "COMPARE (either direction)"), and what each pattern predicted."""

    scores: dict[str, Score] = field(default_factory=dict)
    predicates: Counter[str] = field(default_factory=Counter)
    documents: int = 0


def read_scierc_relations(path: Path | str) -> list[tuple[GoldDoc, set[tuple[Pair, str]]]]:
    """SciERC documents with their gold relations as ((token spans), label), ends exclusive."""
    path = Path(path)
    docs = read_scierc(path)
    relations = list(_relation_lines(path))
    if len(relations) != len(docs):
        raise InputError(f"{len(docs)} documents but {len(relations)} relation lists",
                         source=str(path))
    return list(zip(docs, relations, strict=True))


def _relation_lines(path: Path) -> Iterator[set[tuple[Pair, str]]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            found: set[tuple[Pair, str]] = set()
            for sentence in record.get("relations", []):
                for item in sentence:
                    if len(item) != 5:
                        raise InputError(f"malformed relation {item!r}; expected [start, end, "
                                         "start, end, label]", source=str(path), record=number)
                    s1, e1, s2, e2, label = item
                    found.add(((s1, e1 + 1, s2, e2 + 1), label))
            yield found


def evaluate_scierc(path: Path | str, *, typed: bool = True, model: str | None = None,
                    ) -> RelationReport:
    """Run the relation patterns on every document of a SciERC file and score them."""
    from spacy.tokens import Doc

    nlp = load_nlp(model)
    data = read_scierc_relations(path)
    docs = (
        Doc(nlp.vocab, words=[_PTB.get(w, w) for w in gold.words], spaces=list(gold.spaces),
            sent_starts=list(gold.sent_starts))
        for gold, _ in data
    )
    report = RelationReport(scores={label: Score() for label in (*LABELS, "COMPARE-either")})
    for (gold, relations), doc in zip(data, nlp.pipe(docs), strict=True):
        anchors = [
            Anchor(e.start, e.end, SCIERC_TYPES.get(e.label, ConceptType.CONCEPT), str(i))
            for i, e in enumerate(gold.entities)
        ]
        predicted: set[tuple[Pair, str]] = set()
        for s, predicate, o in doc_relations(doc, anchors, typed=typed):
            report.predicates[predicate.value] += 1
            a, b = anchors[s], anchors[o]
            label, flip = _SCIERC_LABEL[predicate]
            head, tail = (b, a) if flip else (a, b)
            predicted.add(((head.start, head.end, tail.start, tail.end), label))
        _count(report, predicted, relations)
        report.documents += 1
    return report


_SCIERC_LABEL = {
    RelationType.USED_FOR: ("USED-FOR", False),
    RelationType.BASED_ON: ("USED-FOR", True),
    RelationType.COMPARED_WITH: ("COMPARE", False),
    RelationType.OUTPERFORMS: ("COMPARE", False),
    RelationType.EVALUATED_ON: ("EVALUATE-FOR", True),
}


def _count(report: RelationReport, predicted: set[tuple[Pair, str]],
           gold: set[tuple[Pair, str]]) -> None:
    for label in LABELS:
        p = {pair for pair, lab in predicted if lab == label}
        g = {pair for pair, lab in gold if lab == label}
        score = report.scores[label]
        score.tp += len(p & g)
        score.predicted += len(p)
        score.gold += len(g)
    found = {_unordered(pair) for pair, lab in predicted if lab == "COMPARE"}
    true = {_unordered(pair) for pair, lab in gold if lab == "COMPARE"}
    either = report.scores["COMPARE-either"]
    either.tp += len(found & true)
    either.predicted += len(found)
    either.gold += len(true)


def _unordered(pair: Pair) -> tuple[tuple[int, int], tuple[int, int]]:
    a, b = (pair[0], pair[1]), (pair[2], pair[3])
    return (a, b) if a <= b else (b, a)


def format_report(report: RelationReport) -> str:
    """The scores as a small fixed-width table."""
    lines = [f"{'label':<16}{'P':>7}{'R':>7}{'F1':>7}{'tp':>6}{'pred':>6}{'gold':>6}"]
    for label, s in report.scores.items():
        lines.append(f"{label:<16}{s.precision:>7.3f}{s.recall:>7.3f}{s.f1:>7.3f}"
                     f"{s.tp:>6}{s.predicted:>6}{s.gold:>6}")
    patterns = ", ".join(f"{k} {v}" for k, v in sorted(report.predicates.items()))
    lines.append(f"documents {report.documents}; relations found: {patterns or 'none'}")
    return "\n".join(lines)
