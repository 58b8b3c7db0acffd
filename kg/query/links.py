"""A link index for Oxigraph stores: the paper–concept links of the graph as arrays and a
table, kept in SQLite next to the store, so that the named queries a query service gets most
(`co-occurring`, the first page of `papers-using`) aggregate over a concept's papers in
microseconds instead of joining them in the engine.

Why: "concepts in the same papers as X" groups every pair of X's papers' concepts (24k rows for
"convolutional neural network" on the 35k-paper store: ~150 ms in Oxigraph), and the strongest
role of each paper's link to X needs every link of every paper (~150-220 ms for the biggest
concepts). Whole-graph aggregates stay slow on any store; materialised at load time they are a
lookup (docs/QUERIES.md, "The link index").

What it holds, from the data graphs (never the label index):

- every `kg:mentions` link as a sparse paper x concept matrix (two CSR arrays: a concept's
  papers, a paper's concepts); concepts are numbered in the order of their IRIs' code points,
  which is how SPARQL's `ORDER BY ?other` sorts IRIs, so ties break by number;
- for every (paper, concept) pair with a `kg:mentions` link, the strongest role linking them
  (`kg:proposes` 1 … `kg:mentions` 7, `ROLE_RANKS`) and the paper's rank in
  the rank index's paper order (newest first, `kg.query.ranks.PAPER_ORDER`).

The queries' answers never depend on the index beyond what `kg.query.answers` proves: it
replaces one sub-select of a named query by the rows the index gives for it, and the engine runs
the rest of the query text as written. An index that does not fit its store is not used: like the
rank index, it records the store's RocksDB file names (`kg.query.ranks.store_fingerprint`); and
one built from a graph it cannot represent exactly (a `kg:mentions` subject or object that is not
an IRI) says so and is not used either.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

from kg.query.ranks import Graphs, RankIndex, store_fingerprint
from kg.types import Role

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LINK_FILE", "ROLE_RANKS", "LinkIndex"]

LINK_FILE = "paperkg-links.sqlite"
# Written into the file: an index of another layout is rebuilt, never read.
FORMAT = "1"

_KG = "https://w3id.org/paperkg/ontology#"
MENTIONS = _KG + "mentions"
# The link properties, strongest first, numbered as papers-using's `VALUES (?link ?rank)`.
ROLE_RANKS = {_KG + role.value: role.rank + 1 for role in Role}

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE concept (id INTEGER PRIMARY KEY, iri TEXT NOT NULL UNIQUE);
CREATE TABLE array (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE link (
    concept INTEGER NOT NULL, rank INTEGER, paper TEXT NOT NULL, strongest INTEGER NOT NULL
);
"""
_LINK_ORDER = "CREATE INDEX link_order ON link (concept, rank)"


class LinkIndex:
    """The link index of one store: `papers(c)`, `concepts(papers)` and `links(...)`."""

    def __init__(self, db: sqlite3.Connection):
        # numpy is imported here, not with the module: it starts native threads, and a query
        # worker must still be single-threaded when it leaves the network
        # (`kg.query.safety.sandbox_process`).
        import numpy as np

        self.db = db
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        self.fingerprint: list[str] = json.loads(meta.get("fingerprint", "[]"))
        self.usable = meta.get("format") == FORMAT and meta.get("exact") == "1"
        self.ranked = meta.get("ranked") == "1"  # every linked paper has a rank
        arrays = dict(db.execute("SELECT name, data FROM array").fetchall())
        self.concept_ptr = np.frombuffer(arrays.get("concept_ptr", b"\0" * 8), dtype=np.int64)
        self.concept_papers = np.frombuffer(arrays.get("concept_papers", b""), dtype=np.int32)
        self.paper_ptr = np.frombuffer(arrays.get("paper_ptr", b"\0" * 8), dtype=np.int64)
        self.paper_concepts = np.frombuffer(arrays.get("paper_concepts", b""), dtype=np.int32)

    @classmethod
    def build(
        cls,
        store: ox.Store,
        graphs: Graphs,
        path: Path | str = ":memory:",
        *,
        ranks: RankIndex | None = None,
    ) -> LinkIndex:
        """Index the paper–concept links of `store` (its data `graphs`) into SQLite at `path`
        (replaced if it exists; in memory by default), papers ranked by `ranks`."""
        data = set(graphs)
        exact = True
        strongest: dict[tuple[str, str], int] = {}
        mentions: set[tuple[str, str]] = set()
        for prop, rank in ROLE_RANKS.items():
            for quad in store.quads_for_pattern(None, ox.NamedNode(prop), None):
                if quad.graph_name not in data:
                    continue  # the label index's graph
                if not isinstance(quad.subject, ox.NamedNode) or not isinstance(
                    quad.object, ox.NamedNode
                ):
                    # A pair without an IRI mention never counts; a mention that is not
                    # between IRIs cannot be held in the arrays.
                    exact = exact and prop != MENTIONS
                    continue
                pair = (quad.subject.value, quad.object.value)
                if prop == MENTIONS:
                    mentions.add(pair)
                if rank < strongest.get(pair, 8):
                    strongest[pair] = rank
        links = {pair: strongest[pair] for pair in mentions}
        return cls.write(path, links, exact=exact, ranks=ranks)

    @classmethod
    def write(
        cls,
        path: Path | str,
        links: dict[tuple[str, str], int],
        *,
        exact: bool,
        ranks: RankIndex | None = None,
    ) -> LinkIndex:
        """Write the index of `links` ((paper, concept) of every `kg:mentions` link -> its
        strongest role's rank) into SQLite at `path`, papers ranked by `ranks` (`build`
        gathers the links from the store; `kg.query.reindex` from the previous index and the
        papers a load changed)."""
        if path != ":memory:":
            Path(path).unlink(missing_ok=True)
        db = sqlite3.connect(str(path), check_same_thread=False)
        db.executescript(_SCHEMA)
        concepts = sorted({c for _, c in links})
        papers = sorted({p for p, _ in links})
        concept_id = {c: i for i, c in enumerate(concepts)}
        paper_id = {p: i for i, p in enumerate(papers)}
        by_concept: dict[int, list[int]] = defaultdict(list)
        by_paper: dict[int, list[int]] = defaultdict(list)
        for p, c in links:
            by_concept[concept_id[c]].append(paper_id[p])
            by_paper[paper_id[p]].append(concept_id[c])
        db.executemany("INSERT INTO concept VALUES (?, ?)", enumerate(concepts))
        arrays = {
            **_csr("concept", by_concept, len(concepts)),
            **_csr("paper", by_paper, len(papers)),
        }
        db.executemany("INSERT INTO array VALUES (?, ?)", arrays.items())
        ordered = ranks is not None and ranks.usable["papers"]
        paper_rank = ranks.paper_ranks(papers) if ranks is not None and ordered else {}
        db.executemany(
            "INSERT INTO link VALUES (?, ?, ?, ?)",
            sorted(
                (concept_id[c], paper_rank.get(p), p, strongest)
                for (p, c), strongest in links.items()
            ),
        )
        db.execute(_LINK_ORDER)
        meta = {
            "format": FORMAT,
            "exact": "1" if exact else "0",
            "ranked": "1" if len(paper_rank) == len(papers) else "0",
        }
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        db.commit()
        return cls(db)

    @classmethod
    def open(cls, store_dir: Path) -> LinkIndex | None:
        """The index written for the store in `store_dir`, if there is one of this format and
        the store has not changed since."""
        path = store_dir / LINK_FILE
        if not path.is_file():
            return None
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        try:
            index = cls(db)
        except sqlite3.DatabaseError:
            db.close()
            return None
        if not index.usable or index.fingerprint != store_fingerprint(store_dir):
            db.close()
            return None
        return index

    def seal(self, store_dir: Path) -> None:
        """Record the store's files as they are now (call after the store is closed)."""
        self.fingerprint = store_fingerprint(store_dir)
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (json.dumps(self.fingerprint),)
        )
        self.db.commit()

    def ids(self, iris: list[str]) -> list[int]:
        """The numbers of those of `iris` that some paper mentions, in order."""
        found: list[int] = []
        for start in range(0, len(iris), 500):
            chunk = iris[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT id FROM concept WHERE iri IN ({marks}) ORDER BY id"
            found += [concept for (concept,) in self.db.execute(sql, chunk)]
        return sorted(found)

    def iri(self, concept: int) -> str:
        """The IRI of concept number `concept`."""
        row = self.db.execute("SELECT iri FROM concept WHERE id = ?", (concept,)).fetchone()
        return str(row[0])

    def papers(self, concept: int) -> np.ndarray:
        """The (sorted) numbers of the papers that mention concept number `concept`."""
        return self.concept_papers[self.concept_ptr[concept] : self.concept_ptr[concept + 1]]

    def concept_counts(self, papers: np.ndarray) -> np.ndarray:
        """For every concept number, how many of `papers` (distinct numbers) mention it."""
        import numpy as np

        starts, ends = self.paper_ptr[papers], self.paper_ptr[papers + 1]
        picked = np.concatenate(
            [self.paper_concepts[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
            or [np.empty(0, np.int32)]
        )
        return np.bincount(picked, minlength=len(self.concept_ptr) - 1)

    def links(
        self, concepts: list[int], *, strongest: int | None = None, papers: int | None = None
    ) -> tuple[list[tuple[int | None, str, str, int]], bool]:
        """(paper rank, paper IRI, concept IRI, strongest role rank) of every link of the
        `concepts` (with that strongest role when given) from the first `papers` papers in
        rank order (all when None; unranked papers first), and whether more papers follow."""
        if not concepts:
            return [], False
        marks = ",".join("?" * len(concepts))
        sql = (
            "SELECT link.rank, link.paper, concept.iri, link.strongest FROM link "
            f"JOIN concept ON concept.id = link.concept WHERE link.concept IN ({marks})"
        )
        args: list[int] = list(concepts)
        if strongest is not None:
            sql += " AND link.strongest = ?"
            args.append(strongest)
        found: list[tuple[int | None, str, str, int]] = []
        seen: set[str] = set()
        for row in self.db.execute(sql + " ORDER BY link.rank, link.paper", args):
            if row[1] not in seen:
                if papers is not None and len(seen) == papers:
                    return found, True
                seen.add(row[1])
            found.append(row)
        return found, False

    def close(self) -> None:
        self.db.close()


def _csr(name: str, lists: dict[int, list[int]], n: int) -> dict[str, bytes]:
    """Compressed sparse rows of `lists` (row -> sorted members): NAME_ptr and NAME_papers or
    NAME_concepts, as bytes."""
    import numpy as np

    counts = np.zeros(n + 1, dtype=np.int64)
    for row, members in lists.items():
        counts[row + 1] = len(members)
    ptr = np.cumsum(counts)
    flat = np.empty(int(ptr[-1]), dtype=np.int32)
    for row, members in lists.items():
        flat[ptr[row] : ptr[row + 1]] = sorted(members)
    member = "papers" if name == "concept" else "concepts"
    return {f"{name}_ptr": ptr.tobytes(), f"{name}_{member}": flat.tobytes()}
