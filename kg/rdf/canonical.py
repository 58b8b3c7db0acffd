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
from operator import itemgetter

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from kg.rdf.terms import RDF_TYPE

Object = NamedNode | Literal
# (predicate key, object key, predicate, object): the keys give the canonical order.
Entry = tuple[str, str, NamedNode, Object]

_SORT_KEY = itemgetter(0, 1)


def predicate_key(predicate: NamedNode) -> str:
    """The predicate's sort key: rdf:type sorts first (empty key), the rest by IRI."""
    return "" if predicate == RDF_TYPE else predicate.value


class TripleBuffer:
    """Triples grouped by subject IRI as sortable entries; Triples are made once, at the end."""

    def __init__(self) -> None:
        self._subjects: dict[str, list[Entry]] = {}
        self._presorted: set[str] = set()  # blocks added whole, already in canonical order
        self._pkeys: dict[NamedNode, str] = {}

    def add(self, subject: str, predicate: NamedNode, obj: Object, okey: str) -> None:
        """Add one triple; `okey` is the object's lexical value (its sort key)."""
        pkey = self._pkeys.get(predicate)
        if pkey is None:
            pkey = self._pkeys[predicate] = predicate_key(predicate)
        block = self._subjects.get(subject)
        if block is None:
            self._subjects[subject] = [(pkey, okey, predicate, obj)]
        else:
            block.append((pkey, okey, predicate, obj))
            self._presorted.discard(subject)

    def add_entries(self, subject: str, entries: list[Entry], *, presorted: bool = False) -> None:
        """Add several triples of one subject at once (the fast path for evidence nodes).

        `presorted` promises the entries are in canonical order and distinct (no sort, no
        duplicate check), and that no other triple of this subject follows.
        """
        block = self._subjects.get(subject)
        if block is None:
            self._subjects[subject] = entries
            if presorted:
                self._presorted.add(subject)
        else:
            block.extend(entries)
            self._presorted.discard(subject)

    def __contains__(self, subject: str) -> bool:
        return subject in self._subjects

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

    def triples(self) -> list[Triple]:
        """Every triple, deduplicated, in canonical order."""
        out: list[Triple] = []
        append, extend = out.append, out.extend
        subjects, presorted = self._subjects, self._presorted
        for subject in sorted(subjects):
            node = NamedNode(subject)
            block = subjects[subject]
            if subject in presorted:  # sorted and duplicate-free by construction
                extend([Triple(node, predicate, obj) for _, _, predicate, obj in block])
                continue
            block.sort(key=_SORT_KEY)
            last_p = last_o = None
            for pkey, okey, predicate, obj in block:
                if okey != last_o or pkey != last_p:  # equal keys: one triple added twice
                    append(Triple(node, predicate, obj))
                    last_p, last_o = pkey, okey
        return out
