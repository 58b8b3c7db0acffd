"""The rank and link indexes after a load by difference, from the previous ones and the subjects
the load touched, instead of from the whole store.

Built whole, the two indexes read every concept's count, labels and types and every paper's
links out of Oxigraph (20-50 µs a quad in Python: ~40 s for the 8,034-paper store on a busy
machine), although a load that adds 1 % of the papers changes the triples of a few hundred
subjects. Every row of the two indexes but the papers' order is a function of the triples of
one subject, or, for a concept's roles, of whether any subject links it by that role:

- a concept's sort key (paper count, LCASE of its prefLabel), types and label keys: its own
  triples. Kept from the previous index (`kg.query.ranks.ConceptOrder.keys`, rows keyed by IRI)
  for the subjects not touched; read from the store for the touched ones; then all re-sorted
  and renumbered (the ranks are dense, so most ranks move; the sort is in memory);
- a (role, concept) pair: looked up again (one bound pattern a role) for the concepts a
  touched subject links now or linked before (`kg.query.delta.Applied.unlinked`) and for the
  touched concepts themselves; the others keep their roles;
- a (paper, concept) link and its strongest role: the paper's own triples;
- the papers' order (newest first): asked of the engine, as a whole build does (the papers
  are few next to the concepts).

The rows are then written by the same code as a whole build (`RankIndex.write`,
`LinkIndex.write`), so both indexes are the ones a whole build of the new store writes
(`tests/test_store_delta.py` compares them row for row). When the previous indexes cannot be
used (missing, outdated, sorted by the engine, the data in named graphs, a link that is not
between IRIs) `update_indexes` says why and the caller builds them whole.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import pyoxigraph as ox

from kg.query.labels import data_graphs
from kg.query.links import LINK_FILE, MENTIONS, ROLE_RANKS, LinkIndex
from kg.query.ranks import (
    _INTEGER,
    _LABELS,
    _PAPER_COUNT,
    _STRING,
    RANK_FILE,
    ROLES,
    RankIndex,
    lowercase,
    sort_concepts,
)

__all__ = ["update_indexes"]

_DEFAULT = ox.DefaultGraph()
_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_ROLE_NODES = {role: ox.NamedNode(role) for role in sorted(ROLES)}
_COUNT, _PREF = _PAPER_COUNT.value, _LABELS[0].value
_LABEL_IRIS = frozenset(label.value for label in _LABELS)

# A touched subject's triples: predicate IRI -> objects.
Triples = dict[str, list[ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple]]


def update_indexes(
    previous: Path,
    store: ox.Store,
    target: Path,
    touched: Iterable[ox.NamedNode],
    unlinked: Iterable[str],
    *,
    paper_properties: Iterable[str] = (),
) -> tuple[RankIndex, LinkIndex] | str:
    """Write into the folder `target` the rank and link indexes of `store` (the default graph
    only), which differs from the store in `previous` (whose indexes are read) only in the
    triples of the subjects `touched`; `unlinked`: the IRIs the removed triples pointed at.
    Returns the two indexes, or why they are to be built whole."""
    old_ranks = RankIndex.open(previous)
    if old_ranks is None:
        return "no rank index of the previous store"
    old_links = LinkIndex.open(previous)
    if old_links is None:
        old_ranks.close()
        return "no usable link index of the previous store"
    try:
        return _update(old_ranks, old_links, store, target, touched, unlinked, paper_properties)
    except sqlite3.Error as exc:  # e.g. a rank index written before `concept_key` existed
        return f"the previous indexes cannot be read ({exc})"
    finally:
        old_ranks.close()
        old_links.close()


def _update(
    old_ranks: RankIndex,
    old_links: LinkIndex,
    store: ox.Store,
    target: Path,
    touched: Iterable[ox.NamedNode],
    unlinked: Iterable[str],
    paper_properties: Iterable[str],
) -> tuple[RankIndex, LinkIndex] | str:
    if data_graphs(store) != [_DEFAULT]:
        return "the store has named graphs"
    subjects = {node.value: _triples(store, node) for node in touched}
    old = old_ranks.db
    if not old_ranks.usable["concepts"] or old_ranks.roles != ROLES:
        return "the previous rank index has no one order of the concepts"
    keyed = _count(old, "SELECT COUNT(*) FROM concept_key JOIN concept USING (rank)")
    if keyed != _count(old, "SELECT COUNT(*) FROM concept"):
        return "the previous rank index was sorted by the engine"
    rows = _concept_rows(store, subjects)
    if rows is None:
        return "a changed concept's count or label is not what Python sorts"
    rows += [(-count, key, iri) for iri, count, key in old.execute(
        "SELECT iri, count, key FROM concept JOIN concept_key USING (rank)") if iri not in subjects]
    order = sort_concepts(rows)
    ranks = order.ranks
    kept = [(value, iri) for value, iri in _by_iri(old, "concept_type", "type")
            if iri not in subjects]
    types = sorted({(t, ranks[iri]) for t, iri in kept} | set(_types(subjects, ranks)))
    relinked = _relinked(subjects, unlinked, ranks)
    roles = {(role, ranks[iri]) for role, iri in _by_iri(old, "concept_role", "role")
             if iri not in relinked and iri not in subjects and iri in ranks}
    for iri in sorted(relinked):
        node = ox.NamedNode(iri)
        roles.update((role, ranks[iri]) for role, prop in _ROLE_NODES.items()
                     if next(store.quads_for_pattern(None, prop, node, _DEFAULT), None))
    labels = {(key, ranks[iri]) for key, iri in _by_iri(old, "label", "key")
              if iri not in subjects}
    labels.update(_labels(subjects, ranks))
    links = _links(old_links, subjects)
    if links is None:
        return "a changed paper mentions something that is not an IRI"
    graphs = [_DEFAULT]
    rank_index = RankIndex.write(
        store, graphs, target / RANK_FILE, order, types, sorted(roles),
        sorted(labels, key=lambda kr: (kr[1], kr[0])), paper_properties=paper_properties,
    )
    return rank_index, LinkIndex.write(target / LINK_FILE, links, exact=True, ranks=rank_index)


def _count(db: sqlite3.Connection, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


def _by_iri(db: sqlite3.Connection, table: str, column: str) -> Iterable[tuple[str, str]]:
    """(column, concept IRI) of every row of a table of the rank index keyed by rank."""
    return db.execute(f"SELECT {table}.{column}, concept.iri FROM {table} "
                      f"JOIN concept USING (rank)")


def _triples(store: ox.Store, node: ox.NamedNode) -> Triples:
    """The subject's triples in the default graph, by predicate."""
    found: Triples = {}
    for quad in store.quads_for_pattern(node, None, None, _DEFAULT):
        found.setdefault(quad.predicate.value, []).append(quad.object)
    return found


def _concept_rows(
    store: ox.Store, subjects: dict[str, Triples]
) -> list[tuple[int, str, str]] | None:
    """(-paper count, LCASE of the prefLabel, IRI) of the `subjects` that have both, as
    `kg.query.ranks._concept_rows` reads them, or None when one is not what it sorts."""
    found: list[tuple[int, str, str]] = []
    for iri, triples in subjects.items():
        counts, names = triples.get(_COUNT, []), triples.get(_PREF, [])
        for number in counts:
            if not isinstance(number, ox.Literal) or number.datatype != _INTEGER:
                return None
        if not all(isinstance(name, ox.Literal) for name in names):
            return None
        for number in cast(list[ox.Literal], counts):
            for label in cast(list[ox.Literal], names):
                if label.datatype != _STRING:
                    return None
                found.append((-int(number.value), label.value, iri))
    lowered = lowercase(store, (label for _, label, _ in found))
    return [(count, lowered[label], iri) for count, label, iri in found]


def _types(subjects: dict[str, Triples], ranks: dict[str, int]) -> Iterable[tuple[str, int]]:
    for iri, triples in subjects.items():
        if iri in ranks:
            for term in triples.get(_TYPE, ()):
                if isinstance(term, ox.NamedNode):
                    yield term.value, ranks[iri]


def _relinked(
    subjects: dict[str, Triples], unlinked: Iterable[str], ranks: dict[str, int]
) -> set[str]:
    """The ranked concepts whose roles may have changed: those a touched subject links now or
    linked before, and the touched ones."""
    found = set(unlinked) | set(subjects)
    for triples in subjects.values():
        for role in ROLES:
            found.update(term.value for term in triples.get(role, ())
                         if isinstance(term, ox.NamedNode))
    return {iri for iri in found if iri in ranks}


def _labels(subjects: dict[str, Triples], ranks: dict[str, int]) -> Iterable[tuple[str, int]]:
    for iri, triples in subjects.items():
        if iri in ranks:
            for prop in _LABEL_IRIS:
                for term in triples.get(prop, ()):
                    if isinstance(term, ox.Literal):
                        yield term.value.casefold(), ranks[iri]


def _links(old: LinkIndex, subjects: dict[str, Triples]) -> dict[tuple[str, str], int] | None:
    """(paper, concept) -> strongest role of every `kg:mentions` link: the previous index's for
    the papers not touched, the store's for the touched ones (None if one is not between
    IRIs)."""
    links = {
        (paper, concept): strongest
        for paper, concept, strongest in old.db.execute(
            "SELECT link.paper, concept.iri, link.strongest FROM link "
            "JOIN concept ON concept.id = link.concept")
        if paper not in subjects
    }
    for iri, triples in subjects.items():
        strongest: dict[str, int] = {}
        for prop, rank in ROLE_RANKS.items():
            for term in triples.get(prop, ()):
                if isinstance(term, ox.NamedNode):
                    if rank < strongest.get(term.value, 8):
                        strongest[term.value] = rank
                elif prop == MENTIONS:
                    return None
        links.update(((iri, concept.value), strongest[concept.value])
                     for concept in triples.get(MENTIONS, ()) if isinstance(concept, ox.NamedNode))
    return links
