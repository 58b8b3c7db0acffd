"""What the analytics read from a graph: which papers link which concepts, and paper years.

`Incidence` is built from a stream of triples (the statements of a graph file that matter,
`kg.analyze.filescan`) or from an Oxigraph store's indexes; papers and concepts are numbered in
IRI order, so the same graph always gives the same numbers.

>>> import pyoxigraph as ox
>>> from kg.rdf.terms import KG_MENTIONS, SCHEMA_DATE_PUBLISHED, XSD_GYEAR
>>> b = "https://w3id.org/paperkg/resource/"
>>> reader = IncidenceReader()
>>> reader.add(ox.Triple(ox.NamedNode(b + "paper/p1"), KG_MENTIONS, ox.NamedNode(b + "concept/x")))
>>> reader.add(ox.Triple(ox.NamedNode(b + "paper/p1"), SCHEMA_DATE_PUBLISHED,
...                      ox.Literal("2024", datatype=XSD_GYEAR)))
>>> inc = reader.incidence()
>>> [iri.rsplit("/", 1)[1] for iri in inc.papers + inc.concepts]
['p1', 'x']
>>> inc.paper_concepts, inc.years
([[0]], [2024])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kg.rdf.terms import KG_MENTIONS, SCHEMA_DATE_PUBLISHED, SKOS_PREF_LABEL

if TYPE_CHECKING:
    import numpy as np
    import pyoxigraph as ox
    import scipy.sparse as sp


@dataclass(slots=True)
class Incidence:
    """Papers × concepts: `paper_concepts[i]` are the (sorted) concept numbers of paper i."""

    papers: list[str]
    concepts: list[str]
    paper_concepts: list[list[int]]
    years: list[int | None]
    labels: list[str] = field(default_factory=list)

    def concept_papers(self) -> list[list[int]]:
        """`[j]` = the (sorted) paper numbers linked to concept j."""
        found: list[list[int]] = [[] for _ in self.concepts]
        for i, linked in enumerate(self.paper_concepts):
            for j in linked:
                found[j].append(i)
        return found

    def matrix(self) -> sp.csr_matrix:
        """The papers × concepts 0/1 matrix (float64, CSR)."""
        import numpy as np
        import scipy.sparse as sp

        indptr = np.zeros(len(self.papers) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([len(c) for c in self.paper_concepts])
        indices = np.fromiter(
            (j for linked in self.paper_concepts for j in linked), dtype=np.int32,
            count=int(indptr[-1]),
        )
        data = np.ones(len(indices), dtype=np.float64)
        return sp.csr_matrix((data, indices, indptr), shape=(len(self.papers), len(self.concepts)))

    def paper_counts(self) -> np.ndarray:
        """Papers linked to each concept."""
        import numpy as np

        counts = np.zeros(len(self.concepts), dtype=np.int64)
        for linked in self.paper_concepts:
            counts[linked] += 1
        return counts


class IncidenceReader:
    """Collects the triples `Incidence` needs from any stream of triples (others ignored)."""

    def __init__(self) -> None:
        self._links: dict[str, set[str]] = {}
        self._years: dict[str, int] = {}
        self._labels: dict[str, str] = {}

    def add(self, triple: ox.Triple | ox.Quad) -> None:
        """Take what is needed from one triple."""
        p = triple.predicate
        if p == KG_MENTIONS:
            self._links.setdefault(_text(triple.subject), set()).add(_text(triple.object))
        elif p == SCHEMA_DATE_PUBLISHED:
            year = _year(_text(triple.object))
            if year is not None:
                subject = _text(triple.subject)
                self._years[subject] = min(year, self._years.get(subject, year))
        elif p == SKOS_PREF_LABEL:
            subject = _text(triple.subject)
            label = _text(triple.object)
            if subject not in self._labels or label < self._labels[subject]:
                self._labels[subject] = label

    def add_all(self, triples: Iterable[ox.Triple | ox.Quad]) -> None:
        for triple in triples:
            self.add(triple)

    def incidence(self) -> Incidence:
        """The papers (subjects of kg:mentions) and concepts (its objects), numbered in IRI
        order."""
        papers = sorted(self._links)
        concepts = sorted({c for linked in self._links.values() for c in linked})
        number = {c: j for j, c in enumerate(concepts)}
        return Incidence(
            papers=papers,
            concepts=concepts,
            paper_concepts=[sorted(number[c] for c in self._links[p]) for p in papers],
            years=[self._years.get(p) for p in papers],
            labels=[self._labels.get(c, c.rsplit("/", 1)[-1]) for c in concepts],
        )


def read_store(store: ox.Store) -> Incidence:
    """The incidence of the graph in an Oxigraph store (index look-ups by predicate)."""
    reader = IncidenceReader()
    for predicate in (KG_MENTIONS, SCHEMA_DATE_PUBLISHED, SKOS_PREF_LABEL):
        reader.add_all(store.quads_for_pattern(None, predicate, None, None))
    return reader.incidence()


def _text(term: object) -> str:
    """The IRI or lexical form of a term (a quoted triple's text is never needed)."""
    return str(getattr(term, "value", term))


def _year(text: str) -> int | None:
    """The year of an xsd:gYear or date lexical form ("2024", "2024-05-01"); None if none."""
    head = text.strip()[:4]
    return int(head) if len(head) == 4 and head.isdigit() else None
