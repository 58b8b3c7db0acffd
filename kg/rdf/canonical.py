"""Collects triples by subject and returns them in one canonical order.

The order is: subject IRI, then predicate (`rdf:type` first, then by IRI), then object (by its
lexical value). pyoxigraph's serialisers write triples in the order given, grouping consecutive
triples of one subject, so this order alone makes every output format byte-identical for the
same input, whatever order the stages produced the triples in. Duplicates collapse.

Sorting only the subjects (and each subject's handful of triples) is much cheaper than one sort
over millions of triples, and `Triple`s are only created for the final, deduplicated list.

>>> from pyoxigraph import Literal, NamedNode
>>> buf = TripleBuffer()
>>> p = NamedNode("https://example.org/p")
>>> buf.add("https://example.org/b", p, Literal("2"), "2")
>>> buf.add("https://example.org/a", p, Literal("1"), "1")
>>> buf.add("https://example.org/a", RDF_TYPE, NamedNode("https://example.org/C"), "")
>>> buf.add("https://example.org/a", p, Literal("1"), "1")
>>> [str(t) for t in buf.triples()]  # doctest: +NORMALIZE_WHITESPACE
['<https://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://example.org/C>',
 '<https://example.org/a> <https://example.org/p> "1"',
 '<https://example.org/b> <https://example.org/p> "2"']
"""

from __future__ import annotations

from collections.abc import Iterable

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from kg.rdf.terms import RDF_TYPE

Object = NamedNode | Literal


class TripleBuffer:
    """Triples keyed by subject IRI, then by (predicate key, object key)."""

    def __init__(self) -> None:
        self._subjects: dict[str, dict[tuple[str, str], tuple[NamedNode, Object]]] = {}
        # rdf:type sorts first: its key is the empty string, below every IRI.
        self._pkeys: dict[NamedNode, str] = {RDF_TYPE: ""}

    def add(self, subject: str, predicate: NamedNode, obj: Object, okey: str) -> None:
        """Add one triple; `okey` is the object's lexical value (its sort key)."""
        pkey = self._pkeys.get(predicate)
        if pkey is None:
            pkey = self._pkeys[predicate] = predicate.value
        block = self._subjects.get(subject)
        if block is None:
            block = self._subjects[subject] = {}
        block[pkey, okey] = (predicate, obj)

    def add_triples(self, triples: Iterable[Triple]) -> None:
        """Add parsed triples (e.g. the ontology); blank nodes are refused by the contract."""
        for triple in triples:
            subject, obj = triple.subject, triple.object
            if isinstance(subject, BlankNode) or isinstance(obj, BlankNode):
                raise ValueError(f"blank node in {triple}: the graph contract has none")
            if not isinstance(subject, NamedNode) or not isinstance(obj, NamedNode | Literal):
                raise ValueError(f"unsupported term in {triple}")
            # The N-Triples form keeps literals of different datatypes apart.
            self.add(subject.value, triple.predicate, obj, str(obj))

    def __len__(self) -> int:
        return sum(len(block) for block in self._subjects.values())

    def triples(self) -> list[Triple]:
        """Every triple, deduplicated, in canonical order."""
        out: list[Triple] = []
        append = out.append
        for subject in sorted(self._subjects):
            node = NamedNode(subject)
            block = self._subjects[subject]
            for key in sorted(block):
                predicate, obj = block[key]
                append(Triple(node, predicate, obj))
        return out
