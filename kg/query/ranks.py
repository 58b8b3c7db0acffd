"""A rank index for Oxigraph stores: concepts in paper-count order (with their types, roles
and labels for substring search) and papers newest first, kept in SQLite next to the store.

Why: Oxigraph answers a pattern with a bound term in microseconds, but "the 25 most linked
Tasks", "proposed methods, most linked first" or "labels containing 'diffusion'" bind nothing,
so each reads every concept (about 10 µs a pattern a row: 0.15–1.2 s on the 35k-paper store).
Named queries that sort in one of these orders (`@ranked ?c`, see `queries`) let a source with
this index run them on a short list of candidates instead (`kg.query.oxigraph_source`):

- the concepts with a `kg:paperCount` and a `skos:prefLabel`, numbered in the order those
  queries sort by, `ORDER BY DESC(?paperCount) LCASE(?label) ?c`. Oxigraph itself sorts them
  when the index is built, so the order is exactly the engine's;
- every type of each ranked concept, and the roles (`kg:proposes`, `kg:uses`, …) papers link it
  by, to walk the ranks of one type or role;
- the casefolded prefLabels and altLabels of each ranked concept, under SQLite's FTS5 trigram
  index: substring search with an index (Oxigraph has no full-text index; SQLite is in
  Python's standard library and well kept);
- the papers in the order `ORDER BY DESC(?year) ?title ?paper` (newest first), with the
  properties ranked queries ask of them (`schema:codeRepository` for `code-links`).

The answers never depend on the index, only the time: candidates are a superset of what can
match, and the query's own patterns and filters decide. An index that does not fit its store is
not used: the file records the store's RocksDB file names when it is written, and any other
writer (`oxigraph load`, a read-write `oxigraph serve`) changes them.

>>> store = ox.Store()
>>> kg, skos = "https://w3id.org/paperkg/ontology#", "http://www.w3.org/2004/02/skos/core#"
>>> for name, count in [("GAN", 3), ("diffusion model", 7), ("Latent Diffusion", 3)]:
...     c = ox.NamedNode("https://e.org/" + name.replace(" ", "-"))
...     store.add(ox.Quad(c, ox.NamedNode(kg + "paperCount"), ox.Literal(count)))
...     store.add(ox.Quad(c, ox.NamedNode(skos + "prefLabel"), ox.Literal(name)))
>>> index = RankIndex.build(store, [ox.DefaultGraph()])
>>> [iri.rsplit("/", 1)[1] for iri in index.ranked(10)]
['diffusion-model', 'GAN', 'Latent-Diffusion']
>>> [iri.rsplit("/", 1)[1] for iri in index.ranked(10, contains="DIFFUSION")]
['diffusion-model', 'Latent-Diffusion']
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pyoxigraph as ox

from kg.types import Role

__all__ = ["RANK_FILE", "RankIndex", "store_fingerprint"]

RANK_FILE = "paperkg-ranks.sqlite"

Graphs = Sequence[ox.DefaultGraph | ox.NamedNode | ox.BlankNode]

_KG = "https://w3id.org/paperkg/ontology#"
_SKOS = "http://www.w3.org/2004/02/skos/core#"
_LABELS = (ox.NamedNode(_SKOS + "prefLabel"), ox.NamedNode(_SKOS + "altLabel"))
_PAPER_COUNT = ox.NamedNode(_KG + "paperCount")
_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER, _STRING = ox.NamedNode(_XSD + "integer"), ox.NamedNode(_XSD + "string")

# The properties from a paper to a concept (`kg.types.Role`).
ROLES = frozenset(_KG + role.value for role in Role)

# The orders of the named queries that declare `@ranked` (checked when they are read): the
# keys each query's ORDER BY starts with, before the ranked variable itself.
RANK_ORDER = "DESC(?paperCount) LCASE(?label)"
PAPER_ORDER = "DESC(?year) ?title"
ORDERS = {"concepts": RANK_ORDER, "papers": PAPER_ORDER}
_RANK_QUERY = f"""
PREFIX kg: <{_KG}>
PREFIX skos: <{_SKOS}>
SELECT ?c WHERE {{ ?c kg:paperCount ?paperCount ; skos:prefLabel ?label . FILTER(isIRI(?c)) }}
ORDER BY {RANK_ORDER} ?c
"""
_SCHEMA_ORG = "https://schema.org/"
_DCTERMS = "http://purl.org/dc/terms/"

# FTS5's trigram tokenizer matches substrings of three characters or more; shorter texts scan.
_TRIGRAM = 3

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE concept (rank INTEGER PRIMARY KEY, iri TEXT NOT NULL UNIQUE);
CREATE TABLE concept_key (rank INTEGER PRIMARY KEY, count INTEGER NOT NULL, key TEXT NOT NULL);
CREATE TABLE concept_type (type TEXT NOT NULL, rank INTEGER NOT NULL, PRIMARY KEY (type, rank));
CREATE TABLE concept_role (role TEXT NOT NULL, rank INTEGER NOT NULL, PRIMARY KEY (role, rank));
CREATE TABLE paper (rank INTEGER PRIMARY KEY, iri TEXT NOT NULL UNIQUE);
CREATE TABLE paper_property (
    property TEXT NOT NULL, rank INTEGER NOT NULL, PRIMARY KEY (property, rank)
);
CREATE TABLE label (key TEXT NOT NULL, rank INTEGER NOT NULL);
CREATE VIRTUAL TABLE label_text USING fts5(key, content='label', tokenize='trigram');
"""

# RocksDB files that change only when the data does; LOG* (the info log) changes on any open.
_STORE_FILES = ("CURRENT", "MANIFEST-*", "*.sst", "*.log", "OPTIONS-*")


def store_fingerprint(store_dir: Path) -> list[str]:
    """The names of the store's RocksDB data files (and what CURRENT points at)."""
    names = sorted({p.name for pattern in _STORE_FILES for p in store_dir.glob(pattern)})
    current = store_dir / "CURRENT"
    head = current.read_text(encoding="utf-8").strip() if current.is_file() else ""
    return [head, *names]


class RankIndex:
    """The rank index of one store; `ranked()` lists candidates in rank order."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        # A concept with two paper counts or prefLabels, or a paper with two titles or years
        # (graphs merged by hand), has no one rank: that order is not used.
        self.usable = {
            "concepts": meta.get("one_key_per_concept") == "1",
            "papers": meta.get("one_key_per_paper") == "1",
        }
        self.fingerprint: list[str] = json.loads(meta.get("fingerprint", "[]"))
        self.roles: frozenset[str] = frozenset(json.loads(meta.get("roles", "[]")))
        self.paper_properties = frozenset(json.loads(meta.get("paper_properties", "[]")))

    @classmethod
    def build(
        cls,
        store: ox.Store,
        graphs: Graphs,
        path: Path | str = ":memory:",
        *,
        paper_properties: Iterable[str] = (),
    ) -> RankIndex:
        """Index the concepts and papers of `store` (its `graphs` as the default graph) into
        SQLite at `path` (replaced if it exists; in memory by default). Papers are indexed
        with the `paper_properties` they have (those the named queries' `@ranked` tags name:
        `kg.query.named.ranked_paper_properties()`)."""
        order = _concept_sort(store, graphs)
        ranks = order.ranks
        roles = _linked(
            store,
            graphs,
            {role: f"SELECT DISTINCT ?c WHERE {{ ?paper <{role}> ?c }}" for role in ROLES},
            ranks,
        )
        return cls.write(
            store, graphs, path, order, _types(store, graphs, ranks), roles,
            _label_keys(store, ranks),
            paper_properties=paper_properties,
        )

    @classmethod
    def write(
        cls,
        store: ox.Store,
        graphs: Graphs,
        path: Path | str,
        order: ConceptOrder,
        types: list[tuple[str, int]],
        roles: list[tuple[str, int]],
        labels: list[tuple[str, int]],
        *,
        paper_properties: Iterable[str] = (),
    ) -> RankIndex:
        """Write the index of the concepts in `order` with their `types`, `roles` and `labels`
        ((key, rank) rows, sorted), and of the papers of `store` (ordered by the engine), into
        SQLite at `path` (`build` gathers the concepts' rows from the store;
        `kg.query.reindex` from the previous index and the subjects a load changed)."""
        if path != ":memory:":
            Path(path).unlink(missing_ok=True)
        db = sqlite3.connect(str(path), check_same_thread=False)
        db.executescript(_SCHEMA)
        db.executemany(
            "INSERT INTO concept VALUES (?, ?)", ((r, c) for c, r in order.ranks.items())
        )
        if order.keys is not None:
            db.executemany("INSERT INTO concept_key VALUES (?, ?, ?)", order.keys)
        db.executemany("INSERT INTO concept_type VALUES (?, ?)", types)
        db.executemany("INSERT INTO concept_role VALUES (?, ?)", roles)
        db.execute("INSERT INTO meta VALUES ('roles', ?)", (json.dumps(sorted(ROLES)),))
        db.executemany("INSERT INTO label VALUES (?, ?)", labels)
        db.execute("INSERT INTO label_text(label_text) VALUES ('rebuild')")
        db.execute(
            "INSERT INTO meta VALUES ('one_key_per_concept', ?)",
            ("0" if order.repeated else "1",),
        )
        properties = sorted(paper_properties)
        papers, repeated = _order(store, graphs, _paper_query(properties))
        db.executemany("INSERT INTO paper VALUES (?, ?)", ((r, p) for p, r in papers.items()))
        db.executemany(
            "INSERT INTO paper_property VALUES (?, ?)",
            _linked(
                store,
                graphs,
                {p: f"SELECT DISTINCT ?paper WHERE {{ ?paper <{p}> ?value }}" for p in properties},
                papers,
            ),
        )
        db.execute("INSERT INTO meta VALUES ('paper_properties', ?)", (json.dumps(properties),))
        db.execute("INSERT INTO meta VALUES ('one_key_per_paper', ?)", ("0" if repeated else "1",))
        db.commit()
        return cls(db)

    @classmethod
    def open(cls, store_dir: Path) -> RankIndex | None:
        """The index written for the store in `store_dir`, if there is one and the store has
        not changed since."""
        path = store_dir / RANK_FILE
        if not path.is_file():
            return None
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        index = cls(db)
        if index.fingerprint != store_fingerprint(store_dir):
            db.close()
            return None
        return index

    def seal(self, store_dir: Path) -> None:
        """Record the store's files as they are now (call after the store is closed)."""
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
            (json.dumps(store_fingerprint(store_dir)),),
        )
        self.db.commit()
        self.fingerprint = store_fingerprint(store_dir)

    def __len__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM concept").fetchone()[0])

    def ranked_papers(self, limit: int | None, *, having: str | None = None) -> list[str]:
        """The IRIs of the first `limit` papers (all when None), newest first (`PAPER_ORDER`);
        only those with the property `having`, when given and indexed."""
        sql, args = "SELECT iri FROM paper", []
        if having is not None and having in self.paper_properties:
            sql += " WHERE rank IN (SELECT rank FROM paper_property WHERE property = ?)"
            args.append(having)
        sql += " ORDER BY rank"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(str(limit))
        return [iri for (iri,) in self.db.execute(sql, args)]

    def paper_ranks(self, iris: Iterable[str]) -> dict[str, int]:
        """IRI -> rank of those of `iris` that are ranked papers."""
        found: dict[str, int] = {}
        listed = list(iris)
        for start in range(0, len(listed), 500):
            chunk = listed[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT iri, rank FROM paper WHERE iri IN ({marks})"
            found.update(self.db.execute(sql, chunk))
        return found

    def ranked(
        self,
        limit: int | None,
        *,
        type_iri: str | None = None,
        contains: str | None = None,
        role: str | None = None,
    ) -> list[str]:
        """The IRIs of the first `limit` ranked concepts (all when None), in rank order; when
        given, only those of type `type_iri`, with a label containing `contains` (ignoring
        case), and linked from a paper by the property `role` (if the index knows it)."""
        where, args = [], []
        if type_iri is not None:
            where.append("rank IN (SELECT rank FROM concept_type WHERE type = ?)")
            args.append(type_iri)
        if role is not None and role in self.roles:
            where.append("rank IN (SELECT rank FROM concept_role WHERE role = ?)")
            args.append(role)
        if contains is not None:
            key = contains.casefold()
            if len(key) >= _TRIGRAM:
                where.append(
                    "rank IN (SELECT label.rank FROM label_text JOIN label "
                    "ON label.rowid = label_text.rowid WHERE label_text MATCH ?)"
                )
                args.append('"' + key.replace('"', '""') + '"')
            else:
                where.append("rank IN (SELECT rank FROM label WHERE instr(key, ?) > 0)")
                args.append(key)
        sql = "SELECT iri FROM concept"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY rank"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(str(limit))
        return [iri for (iri,) in self.db.execute(sql, args)]

    def close(self) -> None:
        self.db.close()


def _order(store: ox.Store, graphs: Graphs, query: str) -> tuple[dict[str, int], bool]:
    """IRI -> rank (from 1) in the order of `query`'s rows, and whether an IRI repeated."""
    ranks: dict[str, int] = {}
    repeated = False
    for row in cast(ox.QuerySolutions, store.query(query, default_graph=list(graphs))):
        iri = cast(ox.NamedNode, row[0]).value
        if iri in ranks:
            repeated = True
        else:
            ranks[iri] = len(ranks) + 1
    return ranks, repeated


@dataclass(frozen=True, slots=True)
class ConceptOrder:
    """The ranks of the concepts (IRI -> rank, from 1), whether a concept had two sort keys,
    and, when sorted here rather than by the engine, each rank's (rank, paper count, LCASE of
    the label): what `kg.query.reindex` re-sorts after a load by difference."""

    ranks: dict[str, int]
    repeated: bool
    keys: list[tuple[int, int, str]] | None


def _concept_sort(store: ox.Store, graphs: Graphs) -> ConceptOrder:
    """What `_order` of `_RANK_QUERY` gives, sorted here instead of by the engine (10 s for
    57k concepts on a loaded machine, ~1 s here) when every paper count is an xsd:integer and
    every prefLabel a plain string, all in the default graph: the engine's order is then that of
    integers, of code points (strings and IRIs) and of LCASE, which is Python's `lower` for
    ASCII text and the engine's own LCASE for the rest. Otherwise the engine sorts."""
    rows = _concept_rows(store, graphs)
    if rows is None:
        ranks, repeated = _order(store, graphs, _RANK_QUERY)
        return ConceptOrder(ranks, repeated, None)
    lowered = lowercase(store, (label for _, label, _ in rows))
    return sort_concepts((count, lowered[label], iri) for count, label, iri in rows)


def lowercase(store: ox.Store, labels: Iterable[str]) -> dict[str, str]:
    """Each label's sort key: the engine's LCASE (Python's `lower` for ASCII text)."""
    found = {label: label.lower() for label in labels}
    odd = sorted(label for label in found if not label.isascii())
    if odd:
        values = " ".join(str(ox.Literal(label)) for label in odd)
        query = f"SELECT ?l (LCASE(?l) AS ?k) WHERE {{ VALUES ?l {{ {values} }} }}"
        for row in cast(ox.QuerySolutions, store.query(query)):
            found[row[0].value] = row[1].value or row[0].value.lower()
    return found


def sort_concepts(rows: Iterable[tuple[int, str, str]]) -> ConceptOrder:
    """The order of (-paper count, label key, IRI) rows: `_RANK_QUERY`'s."""
    ranks: dict[str, int] = {}
    keys: list[tuple[int, int, str]] = []
    repeated = False
    for count, key, iri in sorted(rows):
        if iri in ranks:
            repeated = True
        else:
            ranks[iri] = len(ranks) + 1
            keys.append((len(ranks), -count, key))
    return ConceptOrder(ranks, repeated, None if repeated else keys)


def _concept_rows(store: ox.Store, graphs: Graphs) -> list[tuple[int, str, str]] | None:
    """(-paper count, prefLabel, IRI) of every IRI with both, or None when a count is not an
    xsd:integer, a label not a plain string, or the data has named graphs."""
    if list(graphs) != [ox.DefaultGraph()]:
        return None
    found: tuple[dict[str, list[ox.Literal]], ...] = ({}, {})
    for prop, into in zip((_PAPER_COUNT, _LABELS[0]), found, strict=True):
        for quad in store.quads_for_pattern(None, prop, None, ox.DefaultGraph()):
            if isinstance(quad.subject, ox.NamedNode):
                if not isinstance(quad.object, ox.Literal):
                    return None
                into.setdefault(quad.subject.value, []).append(quad.object)
    counts, labels = found
    rows = []
    for iri, numbers in counts.items():
        for number in numbers:
            if number.datatype != _INTEGER:
                return None
            for label in labels.get(iri, ()):
                if label.datatype != _STRING:  # a language tag or another datatype
                    return None
                rows.append((-int(number.value), label.value, iri))
    return rows


def _paper_query(properties: Sequence[str]) -> str:
    """The papers (and whatever has one of `properties`) in `PAPER_ORDER`."""
    having = "".join(f" UNION {{ ?paper <{p}> ?value }}" for p in properties)
    return f"""
PREFIX dcterms: <{_DCTERMS}>
PREFIX schema: <{_SCHEMA_ORG}>
SELECT ?paper WHERE {{
  {{ SELECT DISTINCT ?paper WHERE {{ {{ ?paper a schema:ScholarlyArticle }}{having} }} }}
  FILTER(isIRI(?paper))
  OPTIONAL {{ ?paper dcterms:title ?title }}
  OPTIONAL {{ ?paper schema:datePublished ?year }}
}}
ORDER BY {PAPER_ORDER} ?paper
"""


def _linked(
    store: ox.Store, graphs: Graphs, queries: dict[str, str], ranks: dict[str, int]
) -> list[tuple[str, int]]:
    """(key, rank) for every ranked IRI that `queries[key]` (one variable) returns."""
    found = set()
    for key, query in queries.items():
        for row in cast(ox.QuerySolutions, store.query(query, default_graph=list(graphs))):
            term = row[0]
            rank = ranks.get(term.value) if isinstance(term, ox.NamedNode) else None
            if rank is not None:
                found.add((key, rank))
    return sorted(found)


def _types(store: ox.Store, graphs: Graphs, ranks: dict[str, int]) -> list[tuple[str, int]]:
    query = f"SELECT ?c ?t WHERE {{ ?c <{_KG}paperCount> ?n ; a ?t . FILTER(isIRI(?t)) }}"
    rows = cast(ox.QuerySolutions, store.query(query, default_graph=list(graphs)))
    found = {(row[1].value, ranks[row[0].value]) for row in rows if row[0].value in ranks}
    return sorted(found)


def _label_keys(store: ox.Store, ranks: dict[str, int]) -> list[tuple[str, int]]:
    """(casefolded label, rank): casefold equality and containment follow from LCASE's."""
    keys = set()
    for prop in _LABELS:
        for quad in store.quads_for_pattern(None, prop, None):
            rank = ranks.get(quad.subject.value) if isinstance(quad.subject, ox.NamedNode) else None
            if rank is not None and isinstance(quad.object, ox.Literal):
                keys.add((quad.object.value.casefold(), rank))
    return sorted(keys, key=lambda kr: (kr[1], kr[0]))
