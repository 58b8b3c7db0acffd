"""Phase 1 of a build: one partition of papers in, their extraction records out.

`extract_partition` is a pure, picklable function of (papers, configuration, cache folder):
it loads the extractor once per process, takes every paper whose record the cache has from the
cache, extracts the others (their parses too come from the cache where it has them) and stores
what it made. Whatever runs it — this process, `extracting`'s worker processes, a Dask
task — the extractions are the same, so the graph does not depend on how papers were split.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.pool import Pool

from kg.collector import collector_paused, release_free_heap
from kg.extract.cache import (
    PREPARED,
    CacheView,
    open_cache,
    pipeline_versions,
    prepared_version,
    record_version,
    scores_version,
)
from kg.extract.cache import text_key as _text_key
from kg.extract.extractor import Extractor, ExtractorConfig, cached_extractor
from kg.extract.packing import pack, unpack
from kg.extract.records import from_record, to_record
from kg.types import Extraction, Field, Paper

DEFAULT_CONFIG = ExtractorConfig()


@dataclass(frozen=True, slots=True)
class PartitionResult:
    """The extractions of one partition (input order) and where they came from."""

    extractions: tuple[Extraction, ...]
    parsed: int = 0  # texts that went through the English pipeline
    parse_hits: int = 0  # texts whose parse came from the cache
    reused: int = 0  # papers whose whole extraction record came from the cache
    prepared_hits: int = 0  # papers decided again from their cached features
    scores_hits: int = 0  # of those, papers whose models' scores were cached too


def paper_key(paper: Paper) -> str:
    """The cache key of a paper's extraction: the texts extraction reads (title, abstract)."""
    return _text_key(paper.text(Field.TITLE), paper.text(Field.ABSTRACT))


def extract_partition(
    papers: Sequence[Paper],
    config: ExtractorConfig = DEFAULT_CONFIG,
    cache: str | None = None,
    *,
    batch_size: int = 64,
) -> PartitionResult:
    """Extract `papers`, one `Extraction` each in input order; with `cache` (a folder), reuse
    and fill the parse cache (`kg.extract.cache`)."""
    with collector_paused():
        return _extract_partition(papers, config, cache, batch_size)


def _extract_partition(papers: Sequence[Paper], config: ExtractorConfig, cache: str | None,
                       batch_size: int) -> PartitionResult:
    if cache is None:
        extractor = cached_extractor(config)
        before = extractor.counts.copy()
        extractions = tuple(extractor._run(papers, batch_size=batch_size))
        return _result(extractions, extractor, before, 0)
    parse, spans = pipeline_versions(config)
    store = open_cache(cache)
    version = record_version(config, parse, spans)
    keys = [paper_key(p) for p in papers]
    stored = store.get_records(version, keys)
    todo = [i for i, key in enumerate(keys) if key not in stored]
    if not todo:  # nothing to extract: the pipelines need not even be loaded
        return PartitionResult(tuple(from_record(stored[key], paper.id)
                                     for paper, key in zip(papers, keys, strict=True)),
                               reused=len(papers))
    extractor = cached_extractor(config)
    before = extractor.counts.copy()
    prepared = prepared_version(config, parse, spans)
    model = extractor.decision_model
    view = CacheView(store, parse, spans, prepared,
                     scores_version(prepared, model.identity if model is not None else ""))
    fresh: dict[int, Extraction] = {}
    for start in range(0, len(todo), batch_size):
        part = todo[start : start + batch_size]
        made = extractor._run_chunk([papers[i] for i in part], batch_size, view)
        fresh.update(zip(part, made, strict=True))
    store.put_records(version, {keys[i]: to_record(e) for i, e in fresh.items()}.items())
    extractions = tuple(
        fresh[i] if i in fresh else from_record(stored[key], paper.id)
        for i, (paper, key) in enumerate(zip(papers, keys, strict=True))
    )
    return _result(extractions, extractor, before, len(papers) - len(todo))


def cached_extractions(
    papers: Sequence[Paper], config: ExtractorConfig, cache: str
) -> dict[int, Extraction]:
    """The extractions the cache holds records of, by index into `papers` (the papers a
    build need not send to `extract_partition` at all)."""
    parse, spans = pipeline_versions(config)
    keys = [paper_key(p) for p in papers]
    stored = open_cache(cache).get_records(record_version(config, parse, spans), keys)
    return {i: from_record(stored[key], papers[i].id)
            for i, key in enumerate(keys) if key in stored}


def _result(extractions: tuple[Extraction, ...], extractor: Extractor,
            before: dict[str, int], reused: int) -> PartitionResult:
    counts = extractor.counts
    return PartitionResult(extractions,
                           parsed=counts["parsed"] - before.get("parsed", 0),
                           parse_hits=counts["parse_hits"] - before.get("parse_hits", 0),
                           reused=reused,
                           prepared_hits=(counts["prepared_hits"]
                                          - before.get("prepared_hits", 0)),
                           scores_hits=counts["scores_hits"] - before.get("scores_hits", 0))


# --- worker processes ---------------------------------------------------------------------


def _work(job: tuple[list[Paper], ExtractorConfig, str | None]) -> bytes:
    papers, config, cache = job
    # Packed here (`kg.extract.packing`): the build unpacks every worker's results in turn.
    packed = pack(extract_partition(papers, config, cache, batch_size=len(papers)))
    release_free_heap()  # what the batch freed, back to the system (`kg.collector`)
    return packed


@contextmanager
def extracting(
    papers: Sequence[Paper],
    *,
    n_process: int,
    batch_size: int,
    config: ExtractorConfig = DEFAULT_CONFIG,
    cache: str | None = None,
    load_first: bool = True,
    recycle_after: int | None = None,
) -> Iterator[Iterator[PartitionResult]]:
    """Worker processes extracting `papers` from the moment the block begins, while this
    process does other work (issue 14: an incremental build reads the cached records
    meanwhile); the block's iterator gives their results in input order, and leaving the
    block stops the workers. `load_first`: where the platform forks, the pipelines are loaded
    in this process first and the workers inherit them (copy-on-write: it saves each worker
    seconds of imports and model loading); else each worker loads them.

    `recycle_after` (papers; where the platform forks and the pipelines were loaded here): the
    workers are replaced together once each has extracted about that many papers, in
    generations: the papers go in slices of `recycle_after * n_process`, each to a pool of its
    own, which is closed and joined before the next one forks from this process. A worker's
    memory grows with the papers it has seen (the label caches fill, the pages it inherited
    become its own as it touches them): on the 35k corpus two workers held ~640 MB each,
    against ~300 MB after their first thousand papers. A new generation inherits the pipelines
    (and should find this process's collector paused while it takes the results, as
    `kg.build` does, so that the pages they share stay shared). Not the pool's
    `maxtasksperchild`: that forks the new worker from one of the pool's threads while this
    process's main thread runs on, and a child forked while another thread holds a lock (the
    one of stderr, say, while a progress line is written) waits on it forever."""
    fork = "fork" in mp.get_all_start_methods()
    ctx = mp.get_context("fork" if fork else "spawn")
    if fork and load_first:
        preload(config, papers, cache)
    step = recycle_after * n_process if recycle_after and fork and load_first else len(papers)
    parts = [papers[start : start + step] for start in range(0, len(papers), max(1, step))]
    pools: list[Pool] = []

    def generation(part: Sequence[Paper]) -> Iterator[bytes]:
        pool = ctx.Pool(n_process)
        pools.append(pool)
        jobs = ((batch, config, cache) for batch in guided_batches(part, batch_size, n_process))
        return pool.imap(_work, jobs)  # the pool's threads hand jobs out from now

    first = generation(parts[0]) if parts else iter(())

    def results() -> Generator[PartitionResult, None, None]:
        for i, part in enumerate(parts):
            for packed in first if i == 0 else generation(part):
                yield unpack(packed)
            pools[-1].close()  # its workers exit before the next generation forks
            pools[-1].join()

    stream = results()
    try:
        yield stream
    finally:
        stream.close()
        for pool in pools:
            pool.terminate()


def preload(config: ExtractorConfig, papers: Sequence[Paper], cache: str | None) -> None:
    """Load in this process what extracting `papers` will need, before workers fork and
    inherit it: when the cache holds every paper's `prepared` entry, the decision models and
    the English vocabulary only; else every pipeline."""
    extractor = cached_extractor(config)
    if cache is None:
        extractor.preload()
        return
    parse, spans = pipeline_versions(config)
    prepared = prepared_version(config, parse, spans)
    keys = [paper_key(p) for p in papers]
    if prepared is not None and len(open_cache(cache).present(PREPARED, prepared, keys)) == len(
            set(keys)):
        extractor.reader()
    else:
        extractor.preload()


def guided_batches(items: Sequence[Paper], size: int, workers: int) -> Iterator[list[Paper]]:
    """`items` in order, in lists of `size` until the end is near, then shorter ones (a
    `2 * workers`-th of what is left, a quarter of `size` at least), so that the workers
    finish together instead of one of them running a last whole batch alone (guided
    self-scheduling; issue 14: the 2-process speed-up). How the papers are split does not
    change what is extracted.

    >>> [len(b) for b in guided_batches(list(range(100)), 16, 2)]
    [16, 16, 16, 13, 10, 8, 6, 4, 4, 4, 3]
    """
    start, floor = 0, max(1, size // 4)
    while start < len(items):
        n = min(size, max(floor, -(-(len(items) - start) // (2 * workers))))
        yield list(items[start : start + n])
        start += n
