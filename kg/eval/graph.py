"""Score a built graph against a gold annotation of paper -> concept links.

The metric is the one of ../shared/data/gold/GUIDELINES.md: recall over `must` concepts;
precision = predicted concepts matching any gold concept (must or ok) / all predicted
concepts, per paper; matching on `norm_key` of a label against the gold label or any alias.
Type accuracy is over matched concepts (a predicted type is right when the gold lists it among
the acceptable types); proposes precision/recall compare the `proposes` role.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import QuerySolutions, Store

from kg.errors import InputError
from kg.normalize import norm_key
from kg.rdf.io import open_graph
from kg.types import Corpus


@dataclass(frozen=True, slots=True)
class GoldConcept:
    label: str
    keys: frozenset[str]
    types: tuple[str, ...]
    role: str
    must: bool


@dataclass(frozen=True, slots=True)
class GoldPaper:
    n: int
    abstract_start: str
    concepts: tuple[GoldConcept, ...]


@dataclass(frozen=True, slots=True)
class Predicted:
    """One concept linked from a paper: its labels (pref first), type and role."""

    labels: tuple[str, ...]
    ctype: str
    role: str

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(k for k in (norm_key(x) for x in self.labels) if k)


@dataclass
class Report:
    """Counts and the lists a developer reads to improve extraction."""

    papers: int = 0
    must_total: int = 0
    must_found: int = 0
    predicted: int = 0
    correct: int = 0
    typed: int = 0
    typed_right: int = 0
    proposes_predicted: int = 0
    proposes_right: int = 0
    proposes_gold: int = 0
    proposes_found: int = 0
    # The same over the gold's `must` contributions alone: `proposes` predictions matching a
    # must contribution, those matching only an `ok` one (left out of that precision), must
    # contributions and those found.
    proposes_must_right: int = 0
    proposes_ok_only: int = 0
    proposes_must_gold: int = 0
    proposes_must_found: int = 0
    misses: list[tuple[int, str, str]] = field(default_factory=list)
    false_positives: list[tuple[int, str, str]] = field(default_factory=list)
    wrong_types: list[tuple[int, str, str, str]] = field(default_factory=list)
    # (gold type, predicted type) of every typed concept, the rows and columns of a confusion
    # table (`kg.eval.cv.type_confusion`): the gold type is the predicted one when the gold
    # accepts it, else the gold's best, so the cells off the diagonal are the wrong types.
    type_pairs: list[tuple[str, str]] = field(default_factory=list)
    proposes_errors: list[tuple[int, str, str]] = field(default_factory=list)

    @staticmethod
    def _ratio(a: int, b: int) -> float:
        return a / b if b else 0.0

    @property
    def must_recall(self) -> float:
        return self._ratio(self.must_found, self.must_total)

    @property
    def precision(self) -> float:
        return self._ratio(self.correct, self.predicted)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.must_recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def type_accuracy(self) -> float:
        return self._ratio(self.typed_right, self.typed)

    @property
    def proposes_precision(self) -> float:
        return self._ratio(self.proposes_right, self.proposes_predicted)

    @property
    def proposes_recall(self) -> float:
        return self._ratio(self.proposes_found, self.proposes_gold)

    @property
    def proposes_must_predicted(self) -> int:
        """The `proposes` predictions that count when only `must` contributions do: all but
        those matching only an `ok` contribution (neither right nor wrong)."""
        return self.proposes_predicted - self.proposes_ok_only

    @property
    def proposes_must_precision(self) -> float:
        """`proposes` precision when only the `must` contributions count."""
        return self._ratio(self.proposes_must_right, self.proposes_must_predicted)

    @property
    def proposes_must_recall(self) -> float:
        """The share of the gold's `must` contributions predicted `proposes`."""
        return self._ratio(self.proposes_must_found, self.proposes_must_gold)

    def summary(self) -> str:
        """The headline figures, one per line."""
        rows = [
            ("papers", f"{self.papers}"),
            ("must-recall", f"{self.must_recall:.3f}  ({self.must_found}/{self.must_total})"),
            ("precision", f"{self.precision:.3f}  ({self.correct}/{self.predicted})"),
            ("F1", f"{self.f1:.3f}"),
            ("type accuracy", f"{self.type_accuracy:.3f}  ({self.typed_right}/{self.typed})"),
            ("proposes precision",
             f"{self.proposes_precision:.3f}  ({self.proposes_right}/{self.proposes_predicted})"),
            ("proposes recall",
             f"{self.proposes_recall:.3f}  ({self.proposes_found}/{self.proposes_gold})"),
            ("proposes P (must)",
             f"{self.proposes_must_precision:.3f}  ({self.proposes_must_right}/"
             f"{self.proposes_must_predicted})"),
            ("proposes R (must)",
             f"{self.proposes_must_recall:.3f}  ({self.proposes_must_found}/"
             f"{self.proposes_must_gold})"),
        ]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)

    def details(self) -> str:
        """Misses, false positives, wrong types and proposes errors, one per line."""
        lines = [f"misses ({len(self.misses)}):"]
        lines += [f"  [{n}] {label} ({t})" for n, label, t in self.misses]
        lines.append(f"false positives ({len(self.false_positives)}):")
        lines += [f"  [{n}] {label} ({t})" for n, label, t in self.false_positives]
        lines.append(f"wrong types ({len(self.wrong_types)}):")
        lines += [f"  [{n}] {label}: {got}, gold {want}" for n, label, got, want in
                  self.wrong_types]
        lines.append(f"proposes errors ({len(self.proposes_errors)}):")
        lines += [f"  [{n}] {label}: {what}" for n, label, what in self.proposes_errors]
        return "\n".join(lines)


def load_gold(path: str | Path) -> list[GoldPaper]:
    """Read a gold file in the format of ../shared/data/gold/iclr2025_gold.json."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        papers = []
        for i, record in enumerate(data["papers"], 1):
            concepts = tuple(
                GoldConcept(
                    label=c["label"],
                    keys=frozenset(norm_key(x) for x in [c["label"], *c.get("aliases", [])]),
                    types=tuple(c["types"]),
                    role=c["role"],
                    must=c["need"] == "must",
                )
                for c in record["concepts"]
            )
            papers.append(GoldPaper(record.get("n", i), record["abstract_start"], concepts))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a gold annotation file ({exc})", source=str(path)) from exc
    return papers


def _align(gold: list[GoldPaper], abstracts: Mapping[str, str]) -> dict[int, str]:
    """Gold paper number -> predicted paper id, by the start of the abstract."""
    norm = {pid: " ".join(text.split()) for pid, text in abstracts.items()}
    aligned: dict[int, str] = {}
    for paper in gold:
        start = " ".join(paper.abstract_start.split())
        match = [pid for pid, text in norm.items() if text.startswith(start)]
        if match:
            aligned[paper.n] = match[0]
    return aligned


def evaluate(
    gold: list[GoldPaper],
    abstracts: Mapping[str, str],
    predictions: Mapping[str, Iterable[Predicted]],
) -> Report:
    """Score `predictions` (paper id -> linked concepts) against `gold`."""
    report = Report()
    aligned = _align(gold, abstracts)
    for paper in gold:
        pid = aligned.get(paper.n)
        if pid is None:
            raise InputError(
                f"gold paper {paper.n} ({paper.abstract_start[:40]!r}…) is not in the graph",
            )
        preds = list(predictions.get(pid, ()))
        report.papers += 1
        matched_gold: set[int] = set()
        for pred in preds:
            keys = pred.keys
            hits = [i for i, g in enumerate(paper.concepts) if g.keys & keys]
            report.predicted += 1
            if pred.role == "proposes":
                report.proposes_predicted += 1
            if not hits:
                report.false_positives.append((paper.n, pred.labels[0], pred.ctype))
                if pred.role == "proposes":
                    report.proposes_errors.append((paper.n, pred.labels[0], "not in gold"))
                continue
            report.correct += 1
            matched_gold.update(hits)
            best = paper.concepts[hits[0]]
            report.typed += 1
            right = pred.ctype in best.types
            report.type_pairs.append(
                (pred.ctype if right or not best.types else best.types[0], pred.ctype))
            if right:
                report.typed_right += 1
            else:
                report.wrong_types.append(
                    (paper.n, pred.labels[0], pred.ctype, "/".join(best.types)))
            gold_roles = {paper.concepts[i].role for i in hits}
            if pred.role == "proposes":
                proposed = [paper.concepts[i] for i in hits
                            if paper.concepts[i].role == "proposes"]
                if any(g.must for g in proposed):
                    report.proposes_must_right += 1
                elif proposed:
                    report.proposes_ok_only += 1
                if "proposes" in gold_roles:
                    report.proposes_right += 1
                else:
                    report.proposes_errors.append(
                        (paper.n, pred.labels[0], f"predicted proposes, gold {best.role}"))
        for i, g in enumerate(paper.concepts):
            if g.must:
                report.must_total += 1
                if i in matched_gold:
                    report.must_found += 1
                else:
                    report.misses.append((paper.n, g.label, "/".join(g.types)))
            if g.role == "proposes":
                report.proposes_gold += 1
                found = any(
                    pred.role == "proposes" and g.keys & pred.keys for pred in preds
                )
                report.proposes_must_gold += g.must
                report.proposes_must_found += g.must and found
                if found:
                    report.proposes_found += 1
                elif i in matched_gold:
                    report.proposes_errors.append(
                        (paper.n, g.label, "gold proposes, not predicted"))
    return report


def predictions_from_corpus(corpus: Corpus) -> tuple[dict[str, str], dict[str, list[Predicted]]]:
    """(abstracts by paper id, predicted concepts by paper id) of a built corpus."""
    abstracts = {p.id: p.abstract or "" for p in corpus.papers}
    preds: dict[str, list[Predicted]] = {}
    for link in corpus.links:
        concept = corpus.concepts[link.concept_key]
        if link.from_metadata:
            continue
        preds.setdefault(link.paper_id, []).append(
            Predicted((concept.pref_label, *concept.alt_labels), concept.ctype.value,
                      link.role.value)
        )
    return abstracts, preds


_GRAPH_QUERY = """
PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?paper ?concept ?type ?role ?label WHERE {
  ?paper kg:mentions ?concept .
  ?concept a ?type ; skos:prefLabel|skos:altLabel ?label .
  FILTER(?type IN (kg:Model, kg:Method, kg:Task, kg:Dataset, kg:Metric, kg:Concept))
  OPTIONAL {
    ?paper ?role ?concept .
    FILTER(?role IN (kg:proposes, kg:addresses, kg:evaluatesOn, kg:measures,
                     kg:comparesWith, kg:uses))
  }
  FILTER EXISTS { ?e kg:paper ?paper ; kg:concept ?concept ; kg:field ?field .
                  FILTER(?field != "keywords") }
}
"""
_ABSTRACTS_QUERY = """
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?paper ?abstract WHERE { ?paper dcterms:abstract ?abstract }
"""


@dataclass(slots=True)
class _Found:
    """A (paper, concept) pair of the graph as its rows give it: every label, type and role."""

    labels: set[str] = field(default_factory=set)
    type: str = ""
    role: str = ""


def _select(store: Store, query: str) -> QuerySolutions:
    """The rows of a SELECT query (`Store.query` is typed for every query form)."""
    result = store.query(query)
    assert isinstance(result, QuerySolutions)
    return result


def predictions_from_graph(
    path: str | Path,
) -> tuple[dict[str, str], dict[str, list[Predicted]]]:
    """(abstracts by paper IRI, predicted concepts by paper IRI) of a graph file."""
    store = open_graph(path)
    abstracts = {
        str(row["paper"].value): str(row["abstract"].value)
        for row in _select(store, _ABSTRACTS_QUERY)
    }
    found: dict[tuple[str, str], _Found] = {}
    pref: dict[str, str] = {}
    for row in _select(store, _GRAPH_QUERY):
        paper, concept = str(row["paper"].value), str(row["concept"].value)
        item = found.setdefault((paper, concept), _Found())
        item.type = str(row["type"].value).rsplit("#", 1)[-1]
        if row["role"] is not None:
            item.role = str(row["role"].value).rsplit("#", 1)[-1]
        item.labels.add(str(row["label"].value))
    for row in _select(
        store, "SELECT ?c ?l WHERE { ?c <http://www.w3.org/2004/02/skos/core#prefLabel> ?l }"
    ):
        pref[str(row["c"].value)] = str(row["l"].value)
    preds: dict[str, list[Predicted]] = {}
    for (paper, concept), item in sorted(found.items()):
        labels = sorted(item.labels)
        first = pref.get(concept, labels[0])
        ordered = (first, *(x for x in labels if x != first))
        preds.setdefault(paper, []).append(Predicted(ordered, item.type, item.role or "mentions"))
    return abstracts, preds


def evaluate_graph(graph: str | Path, gold: str | Path) -> Report:
    """Score the graph file `graph` against the paper -> concept gold file `gold`."""
    abstracts, predictions = predictions_from_graph(graph)
    return evaluate(load_gold(gold), abstracts, predictions)


def is_paper_gold(path: str | Path) -> bool:
    """True for a paper -> concept gold file (JSON object with "papers")."""
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", source=str(path)) from exc
    return head.lstrip().startswith("{") and '"papers"' in head
