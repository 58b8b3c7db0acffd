"""The embedded, persistent Oxigraph store: bulk loads that are all-or-nothing.

A store is an Oxigraph (RocksDB) folder, so `oxigraph serve --location DIR` can serve it too.
How a store folder is opened (read-only, recovering a swap cut short) is in `kg.rdf.io`.
Next to the graph (in the default graph, or the named graphs of a TriG/N-Quads file) it holds a
label index in the named graph `kg.query.labels.INDEX_GRAPH`, and the folder holds a rank index
(`kg.query.ranks.RANK_FILE`) and a link index (`kg.query.links.LINK_FILE`), both SQLite, all
rebuilt by every load.
`load_store` never writes into the live folder: it bulk-loads a new store next to it and swaps
the two folders by renaming, so a failed load (bad file, full disk, Ctrl-C) leaves the previous
contents exactly as they were, and readers that have the old store open keep reading it.
"""

from __future__ import annotations

import gc
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kg.errors import StoreError
from kg.query.blocks import Blocks, SubjectCheck, Unsplittable, split_file
from kg.query.delta import apply, plan, read_record, write_record
from kg.query.labels import build_label_index, data_graphs, index_size, refresh_label_index
from kg.query.links import LINK_FILE, LinkIndex
from kg.query.named import ranked_paper_properties
from kg.query.ranks import RANK_FILE, RankIndex
from kg.query.reindex import update_indexes
from kg.rdf.io import LOADING, is_store, load_file, locked, open_read_only, quads, recover

__all__ = ["LOAD_BATCH", "LoadReport", "index_links", "load_store", "store_size"]

#: Quads a graph file hands pyoxigraph's bulk loader per call (`kg.rdf.io.load_file`'s
#: `batch`). One `bulk_load` of a whole file holds batches of 1 M quads per thread (not
#: configurable from Python): ~1.7 GB peak on the 11.8 M triples of the 35k-paper graph. The
#: loader's memory grows with the batch, the number of calls costs time (docs/SCALE.md).
LOAD_BATCH = 250_000


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What a load did: the store, its triple count afterwards, time and size on disk, and
    whether it went by difference (`kg.query.delta`; `note` says what changed, or why the
    store was loaded whole)."""

    store: Path
    triples: int
    seconds: float
    size_bytes: int
    replaced: bool
    by_difference: bool = False
    note: str = ""

    def summary(self) -> str:
        """One line for the terminal."""
        if self.by_difference:
            action = "updated by difference to"
        else:
            action = "replaced with" if self.replaced else "now holds"
        line = (
            f"{self.store}: {action} {self.triples:,} triples in {self.seconds:.1f} s "
            f"({self.size_bytes / 1e6:.1f} MB on disk)"
        )
        if self.by_difference:
            return f"{line}; {self.note}"
        return f"{line}; loaded whole: {self.note}" if self.note else line


def store_size(path: Path) -> int:
    """Bytes used by the store's files."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def load_store(
    store_dir: Path | str,
    graph_path_or_triples: Path | str | Iterable[Any],
    *,
    replace: bool = True,
    edit: Callable[[ox.Store], object] | None = None,
) -> LoadReport:
    """Bulk-load a graph file, or pyoxigraph `Triple`s/`Quad`s, into the store at `store_dir`.

    `replace=True` makes the store hold exactly the new graph; `replace=False` adds to what it
    holds, after `edit` (if given) has changed the copy it adds to (e.g. removed what the new
    triples replace). All or nothing: on any failure the store keeps its previous contents and
    the error (`InputError` for a bad file, `StoreError` otherwise) says why.
    """
    if replace and edit is not None:
        raise ValueError("edit changes the store added to: it needs replace=False")
    store_dir = Path(store_dir)
    start = time.perf_counter()
    store_dir.parent.mkdir(parents=True, exist_ok=True)
    if store_dir.exists() and not is_store(store_dir) and any(store_dir.iterdir()):
        raise StoreError(
            f"{store_dir} exists and is not an Oxigraph store; refusing to replace it "
            "(give an empty or new folder)"
        )
    with locked(store_dir):
        recover(store_dir)
        _remove_stale(store_dir)
        work = Path(tempfile.mkdtemp(prefix=f".{store_dir.name}{LOADING}", dir=store_dir.parent))
        try:
            fresh = work / "store"
            path = graph_path_or_triples if isinstance(graph_path_or_triples, str | Path) else None
            subjects = work / "subjects"
            blocks, note = _blocks(path, subjects) if replace and path is not None else (None, "")
            done = None
            if not is_store(store_dir):
                note = ""  # a first load: nothing to compare with
            elif blocks is not None and path is not None:
                done, note = _load_difference(store_dir, fresh, path, blocks)
            if done is None:
                if not replace and is_store(store_dir):
                    open_read_only(store_dir).backup(str(fresh))
                check = SubjectCheck(blocks.keys) if blocks is not None else None
                triples = _bulk_load(fresh, graph_path_or_triples, edit, check)
                if check is not None and not check.done():
                    blocks = None  # its blocks are not one statement each: no record
            else:
                triples = done
            if blocks is not None:
                write_record(fresh, blocks, subjects, triples)
            _swap(fresh, store_dir, work / "old")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return LoadReport(
        store_dir, triples, time.perf_counter() - start, store_size(store_dir), replace,
        by_difference=done is not None, note=note,
    )


def _blocks(path: Path | str, subjects: Path) -> tuple[Blocks | None, str]:
    """The blocks of a graph file (`kg.query.blocks`, their subject IRIs written to
    `subjects`), or None and why not."""
    try:
        with subjects.open("wb") as out:
            return split_file(path, out), ""
    except Unsplittable as exc:
        return None, f"the graph is not cut into subject blocks ({exc})"


def _load_difference(store_dir: Path, fresh: Path, path: Path | str,
                     blocks: Blocks) -> tuple[int | None, str]:
    """Load `path` into `fresh`, a copy of the store at `store_dir`, by its difference from the
    file the store was loaded from (`kg.query.delta`): the data triples and what changed, or
    None and why the store is to be loaded whole (`fresh` is then removed)."""
    record = read_record(store_dir)
    if isinstance(record, str):
        return None, record
    change = plan(record, blocks)
    if isinstance(change, str):
        return None, change
    open_read_only(store_dir).backup(str(fresh))
    store = ox.Store(str(fresh))
    indexes: list[RankIndex | LinkIndex] = []
    why = "the graph's changed blocks are not one statement each of their subject"
    try:
        applied = apply(store, path, blocks, change)
        if applied is not None:
            refresh_label_index(store, applied.touched)
            triples = record.triples - applied.removed + applied.added
            store.flush()
            updated = update_indexes(store_dir, store, fresh, applied.touched, applied.unlinked,
                                     paper_properties=ranked_paper_properties())
            if isinstance(updated, str):
                _indexes(store, fresh, indexes)
            else:
                indexes.extend(updated)
    except Unsplittable as exc:
        applied, why = None, f"the graph changed while it was read ({exc})"
    except OSError as exc:
        raise StoreError(f"{fresh}: load by difference failed: {exc}") from exc
    finally:
        del store
        gc.collect()  # closes the RocksDB handle before the folder is renamed
    if applied is None:
        shutil.rmtree(fresh, ignore_errors=True)
        return None, why
    _seal(indexes, fresh)
    return triples, change.summary()


def _bulk_load(target: Path, data: Path | str | Iterable[Any],
               edit: Callable[[ox.Store], object] | None = None,
               check: SubjectCheck | None = None) -> int:
    """Load into the store at `target` (after `edit`), then (re)build its label and rank
    indexes; returns the number of data triples (the index not counted). `check` sees the
    quads of a graph file as they are parsed."""
    store = ox.Store(str(target))
    indexes: list[RankIndex | LinkIndex] = []
    try:
        if edit is not None:
            edit(store)
        if isinstance(data, str | Path):
            load_file(store, data, bulk=True, batch=LOAD_BATCH,
                      wrap=check.wrap if check is not None else None)
        else:  # in batches too; a blank node object is the same node in every batch
            items = quads(data)
            for first in items:
                store.bulk_extend(chain((first,), islice(items, LOAD_BATCH - 1)))
        build_label_index(store)  # a replace starts empty; an append keeps the old keys
        store.flush()
        triples = len(store) - index_size(store)
        _indexes(store, target, indexes)
    except OSError as exc:
        raise StoreError(f"{target}: bulk load failed: {exc}") from exc
    finally:
        del store
        gc.collect()  # closes the RocksDB handle before the folder is renamed
    _seal(indexes, target)
    return triples


def _indexes(store: ox.Store, target: Path, built: list[RankIndex | LinkIndex]) -> None:
    """Build the rank and link indexes of the loaded store at `target` (appended to `built`,
    to seal once the store is closed)."""
    store.flush()
    graphs = data_graphs(store)
    ranks = RankIndex.build(
        store, graphs, target / RANK_FILE, paper_properties=ranked_paper_properties()
    )
    built.append(ranks)
    built.append(LinkIndex.build(store, graphs, target / LINK_FILE, ranks=ranks))


def _seal(indexes: list[RankIndex | LinkIndex], target: Path) -> None:
    for index in indexes:
        index.seal(target)  # the store's files as they stay: any later writer changes them
        index.close()


def index_links(store_dir: Path | str) -> float | None:
    """Write the store's link index (`kg.query.links`) when it has none that fits it (a store
    loaded by an older paperkg, or whose index a writer outdated); the seconds it took, or None
    when the index was already there. The store is only read; the index goes to a temporary
    file renamed into place, so readers see either no index or a whole one. Needs the store's
    rank index to be current (its papers' order); without it, papers-using runs as written.
    Raises `StoreError` when the folder cannot be written."""
    store_dir = Path(store_dir)
    if LinkIndex.open(store_dir) is not None:
        return None
    start = time.perf_counter()
    store = open_read_only(store_dir)
    ranks = RankIndex.open(store_dir)
    work = store_dir / f".{LINK_FILE}{LOADING}"
    try:
        links = LinkIndex.build(store, data_graphs(store), work, ranks=ranks)
        links.seal(store_dir)
        links.close()
        os.replace(work, store_dir / LINK_FILE)
    except (OSError, sqlite3.Error) as exc:
        work.unlink(missing_ok=True)
        raise StoreError(f"{store_dir}: cannot write its link index: {exc}") from exc
    finally:
        if ranks is not None:
            ranks.close()
        del store
        gc.collect()
    return time.perf_counter() - start


def _swap(fresh: Path, live: Path, old: Path) -> None:
    """Put `fresh` at `live`; the previous store goes to `old` (deleted with the work dir)."""
    if live.exists():
        os.rename(live, old)
    os.rename(fresh, live)


def _remove_stale(store_dir: Path) -> None:
    """Work folders of loads that died (we hold the lock, so none is running)."""
    for work in store_dir.parent.glob(f".{store_dir.name}{LOADING}*"):
        shutil.rmtree(work, ignore_errors=True)
