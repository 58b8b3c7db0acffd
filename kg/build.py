"""`kg build` as a library call: the one place that runs the stages in order.

read (`kg.ingest`) -> extract (`kg.extract`) -> canonicalise (`kg.canon`) -> link to the
vocabularies (`kg.vocab`) -> triples (`kg.rdf`) -> graph file, store (`kg.query.store`), page
(`viz`).

    from kg.build import run_build
    summary = run_build(["examples/iclr2025_abstracts.txt"], "out/graph.ttl")
    print(summary.format())
"""

from __future__ import annotations

import gc
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path

from pyoxigraph import Triple

from kg.analyze import analyze_read, append_triples
from kg.analyze.incidence import IncidenceReader
from kg.canon.compact import SpanTable, compact_extraction
from kg.canon.corpus import canonical_corpus
from kg.canon.corrections import read_corrections
from kg.canon.relations import canonical_relations
from kg.collector import collector_paused, release_free_heap
from kg.errors import InputError
from kg.extract import ExtractorConfig
from kg.extract.cache import (
    RECORD,
    default_cache_dir,
    open_cache,
    pipeline_versions,
    record_version,
)
from kg.extract.cluster import DaskTarget, extract_on_dask
from kg.extract.partition import (
    PartitionResult,
    cached_extractions,
    extract_partition,
    extracting,
    paper_key,
)
from kg.ingest import IngestReport, read_papers
from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.shelf import PaperShelf
from kg.namespaces import DEFAULT_BASE
from kg.normalize import keys_kept
from kg.query.store import load_store
from kg.rdf import GraphFormat, write_graph
from kg.rdf.build import iter_segments, iter_triples
from kg.rdf.reuse import reusable, write_reusing
from kg.rdf.serialize import write_atomically
from kg.rdf.shards import ShardWriter
from kg.types import ConceptType, Corpus, Correction, Extraction, Paper, Role
from kg.vocab.gazetteer import Gazetteer
from kg.vocab.matching import match_vocabularies
from viz import render_html

ProgressCallback = Callable[[int], None]
"""Called with the number of papers just extracted."""

# Below this many papers, worker start-up (loading spaCy in each) costs more than it saves.
PARALLEL_THRESHOLD = 400

# Papers whose extraction records are read from the parse cache at once.
CACHE_READ_BATCH = 2048
# Papers a worker process extracts at a time; no more papers than this run in this process.
WORKER_BATCH = 32
# Papers each worker process extracts before the workers are replaced by new ones
# (`extracting`'s `recycle_after`): it bounds each worker's memory on a large corpus.
WORKER_PAPERS = 1024


def default_processes(n_papers: int) -> int:
    """Worker processes for a corpus of `n_papers`: all cores for large corpora, else 1."""
    if n_papers < PARALLEL_THRESHOLD:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


@dataclass
class ExtractCounts:
    """Where a build's extractions came from (the parse cache at work)."""

    papers: int = 0
    parsed: int = 0  # texts (titles, abstracts) run through the English pipeline
    parse_hits: int = 0  # texts whose parse came from the cache
    prepared_hits: int = 0  # papers decided again from their cached features
    scores_hits: int = 0  # of those, papers whose models' scores were cached too
    reused: int = 0  # papers whose whole extraction record came from the cache

    def add(self, result: PartitionResult) -> None:
        self.papers += len(result.extractions)
        self.parsed += result.parsed
        self.parse_hits += result.parse_hits
        self.reused += result.reused
        self.prepared_hits += result.prepared_hits
        self.scores_hits += result.scores_hits

    def format(self, where: str = "") -> str:
        """What the `extraction` stage line says (`where`: " on <the Dask cluster>")."""
        decided = (f", {self.prepared_hits} decided again from cached features"
                   f" ({self.scores_hits} with their models' scores)"
                   if self.prepared_hits else "")
        return (f"{self.papers} papers{where} ({self.reused} from the cache), "
                f"{self.parsed} texts parsed, {self.parse_hits} parses from the cache{decided}")


def extract_corpus(
    papers: Sequence[Paper],
    *,
    n_process: int | None = None,
    progress: ProgressCallback | None = None,
    config: ExtractorConfig | None = None,
    dask: DaskTarget | None = None,
    cache: str | Path | None = None,
    counts: ExtractCounts | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Extraction]:
    """Extractions of every paper that has an abstract, by paper id: in this process, in
    worker processes, or as tasks on the Dask cluster `dask` (`kg.extract.cluster`). With
    `cache` (a folder), parses and extraction records are reused and stored there
    (`kg.extract.cache`); `counts`, if given, adds up where they came from. `meanwhile` is
    called once when this process would otherwise wait for worker processes (they started on
    the new papers of an incremental build and the cached records are read, or they extract
    every paper not in the cache), e.g. to load what later stages need."""
    config = config or ExtractorConfig()
    counts = counts if counts is not None else ExtractCounts()
    folder = str(cache) if cache is not None else None
    results: dict[str, Extraction] = {}
    # Equal spans are one object for the corpus (`kg.canon.compact`); the table itself goes
    # when the extractions are made.
    spans: SpanTable = {}
    with ExitStack() as running:
        early: Iterable[PartitionResult] = ()
        sent: set[str] = set()  # the ids of the papers the workers started on
        if folder is not None:  # papers whose records the cache has need no worker at all
            todo, seen = _uncached((p for p in papers if p.abstract), config, folder)
            if todo and dask is None and n_process != 1 and seen > len(todo):
                # An incremental build: the new papers go to worker processes now, and this
                # process reads the others' records while they run (issue 14).
                workers = min(n_process or default_processes(len(todo)),
                              -(-len(todo) // WORKER_BATCH))
                # One worker loads the pipelines itself, while this process reads; with more,
                # loading them here once saves each of them doing it.
                early = running.enter_context(extracting(
                    todo, n_process=workers, batch_size=WORKER_BATCH, config=config,
                    cache=folder, load_first=workers > 1))
                sent = {p.id for p in todo}  # their records may appear while the others are read
            # In slices: a slice's records are decoded JSON until they become Extractions (and
            # a `PaperShelf`'s papers are read a slice at a time). With the collector paused,
            # as where the workers' results are taken below: decoding makes no reference
            # cycles, and the collector's passes over the growing extractions took half of
            # this loop (35k records: 16.7-17.1 s with it, 8.2-8.5 s without; issue 14).
            late: list[Paper] = []
            with collector_paused():
                for batch in _slices((p for p in papers if p.abstract and p.id not in sent),
                                     CACHE_READ_BATCH):
                    reused = cached_extractions(batch, config, folder)
                    for i in sorted(reused):
                        results[batch[i].id] = compact_extraction(reused[i], spans)
                    counts.add(PartitionResult(tuple(reused.values()), reused=len(reused)))
                    if progress is not None and reused:
                        progress(len(reused))
                    late += [p for i, p in enumerate(batch) if i not in reused]
            if sent and meanwhile is not None:
                meanwhile()
            _take(early, results, spans, counts, progress)
            todo = late
        else:
            todo = [p for p in papers if p.abstract]
        if not todo:  # every record from the cache: no pipeline to load, no worker to start
            return results
        processes = default_processes(len(todo)) if n_process is None else n_process
        if len(todo) <= WORKER_BATCH:
            processes = 1  # one worker's batch: forking workers would only add their start-up
        if dask is not None:
            stream: Iterable[PartitionResult] = extract_on_dask(todo, dask, config=config,
                                                                cache=folder)
        elif processes <= 1:
            stream = (extract_partition(batch, config, folder) for batch in _slices(todo, 64))
        else:
            stream = running.enter_context(extracting(
                todo, n_process=processes, batch_size=WORKER_BATCH, config=config,
                cache=folder, recycle_after=WORKER_PAPERS))
            if not sent and meanwhile is not None:
                meanwhile()  # the workers have started: off the critical path (issue 14)
            # Paused: a full collection here would touch every extraction taken so far, and
            # a worker forked since (`recycle_after`) would then hold its own copy of their
            # pages. Unpacking and compacting make no reference cycles.
            running.enter_context(collector_paused())
        _take(stream, results, spans, counts, progress)
    return results


def prepare_later_stages(store: bool) -> None:
    """Load what the stages after extraction load on their first use: the vocabulary linker's
    index and the gazetteer's hierarchy (linking, ~0.5-0.7 s), numpy (the store's load by
    difference). An incremental build does it while its workers parse the new papers, off
    the build's critical path (issue 14); the same is loaded either way."""
    match_vocabularies(())
    Gazetteer.load().broader("")
    if store:
        import numpy  # noqa: F401  (imported where the store's load uses it)


def _take(stream: Iterable[PartitionResult], results: dict[str, Extraction], spans: SpanTable,
          counts: ExtractCounts, progress: ProgressCallback | None) -> None:
    """Add the extractions `stream` makes to `results` (compacted), in its order."""
    for result in stream:
        counts.add(result)
        for extraction in result.extractions:
            results[extraction.paper_id] = compact_extraction(extraction, spans)
        if progress is not None:
            progress(len(result.extractions))


def _uncached(papers: Iterable[Paper], config: ExtractorConfig,
              folder: str) -> tuple[list[Paper], int]:
    """The papers whose extraction records the cache lacks (asked of its keys a slice at a
    time: no record is read), and how many papers were looked up."""
    parse, spans = pipeline_versions(config)
    version = record_version(config, parse, spans)
    store = open_cache(folder)
    missing: list[Paper] = []
    seen = 0
    for batch in _slices(papers, CACHE_READ_BATCH):
        keys = [paper_key(p) for p in batch]
        found = store.present(RECORD, version, keys)
        missing += [p for p, key in zip(batch, keys, strict=True) if key not in found]
        seen += len(batch)
    return missing, seen


def _slices(papers: Iterable[Paper], size: int) -> Iterator[list[Paper]]:
    """`papers` in lists of `size` (the last one shorter)."""
    found = iter(papers)
    while batch := list(islice(found, size)):
        yield batch


def build_corpus(
    papers: Iterable[Paper],
    *,
    n_process: int | None = None,
    progress: ProgressCallback | None = None,
    config: ExtractorConfig | None = None,
    corrections: list[Correction] | None = None,
) -> Corpus:
    """Extract and canonicalise `papers` into a `Corpus`, then apply people's `corrections`
    (`kg.canon.corrections`)."""
    paper_list = list(papers)
    extractions = extract_corpus(paper_list, n_process=n_process, progress=progress,
                                 config=config)
    return link_corpus(paper_list, extractions, corrections or [])


def link_corpus(
    papers: Sequence[Paper],
    extractions: dict[str, Extraction],
    corrections: list[Correction] | None = None,
    *,
    release: bool = False,
) -> Corpus:
    """Canonicalise the extractions into concepts, links and relations (`kg.canon.corpus`:
    merges, hygiene, origin roles, then people's `corrections`), and match the concepts to the
    vocabularies. `release`: `extractions` is the caller's own dict and keeps of each paper
    only what the graph reads (`kg.canon.concepts.after_links`) once its links are made."""
    with keys_kept():  # every mention is keyed pass after pass (`kg.normalize.keys_kept`)
        canon = canonical_corpus(papers, extractions, corrections or [], release=release)
        result = canon.canonical
        concepts = result.concepts
        relations = canonical_relations(papers, extractions, concepts, key_of=result.key_of)
        matches = match_vocabularies(concepts.values())
    return Corpus(papers=papers, extractions=extractions, concepts=concepts,
                  links=result.links, relations=relations, matches=matches,
                  decisions=canon.decisions, rejections=canon.rejections,
                  corrections=canon.applied, warnings=canon.warnings)


StageCallback = Callable[[str, float, str], None]
"""Called when a build stage ends: its name, its seconds, what it did ("6 papers read")."""


class _Stages:
    """Times each stage of a build and reports it to the callback."""

    def __init__(self, callback: StageCallback | None) -> None:
        self.callback = callback

    @contextmanager
    def stage(self, name: str) -> Iterator[list[str]]:
        start = time.perf_counter()
        detail: list[str] = []
        yield detail
        gc.freeze()  # what the stage made lives on: later collections skip it
        if self.callback is not None:
            self.callback(name, time.perf_counter() - start, "; ".join(detail))


ProgressFactory = Callable[[int], Callable[[int], None]]
"""Given the number of papers to extract, returns the per-paper progress callback."""


@dataclass
class BuildSummary:
    """What one build read and wrote."""

    output: Path
    papers_read: int
    papers_skipped: int
    papers_without_abstract: int
    duplicates: int
    concepts: Counter[ConceptType]
    links: Counter[Role]
    triples: int
    seconds: float
    store: Path | None = None
    html: Path | None = None
    warnings: list[str] = field(default_factory=list)
    extraction: ExtractCounts = field(default_factory=ExtractCounts)

    def format(self) -> str:
        """The closing summary `kg build` prints."""
        rows = [
            ("papers read", f"{self.papers_read}"),
            ("papers skipped", f"{self.papers_skipped}"),
            ("without abstract", f"{self.papers_without_abstract}"),
            ("duplicate ids", f"{self.duplicates}"),
            ("concepts", f"{sum(self.concepts.values())}"),
        ]
        rows += [(f"  {t.value}", f"{self.concepts.get(t, 0)}") for t in ConceptType]
        rows.append(("links", f"{sum(self.links.values())}"))
        rows += [(f"  {r.value}", f"{self.links.get(r, 0)}") for r in Role]
        rows += [
            ("triples", f"{self.triples}"),
            ("seconds", f"{self.seconds:.1f}"),
            ("graph", str(self.output)),
        ]
        if self.store is not None:
            rows.append(("store", str(self.store)))
        if self.html is not None:
            rows.append(("page", str(self.html)))
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def run_build(
    inputs: Iterable[str | Path],
    output: str | Path,
    *,
    fmt: str | None = None,
    base: str = DEFAULT_BASE,
    strict: bool = False,
    store: str | Path | None = None,
    html: str | Path | None = None,
    n_process: int | None = None,
    progress: ProgressFactory | None = None,
    config: ExtractorConfig | None = None,
    input_format: str | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    on_stage: StageCallback | None = None,
    analyze: bool = False,
    corrections: str | Path | None = None,
    dask: DaskTarget | None = None,
    cache: str | Path | bool = True,
    shards: int = 0,
    shards_dir: str | Path | None = None,
) -> BuildSummary:
    """Read `inputs`, extract and canonicalise, write the graph to `output` (format from
    `fmt` or the file extension), optionally load it into an Oxigraph store and draw the page.

    Raises `InputError` before writing anything when no paper with an abstract was read: a
    bad input never replaces a good graph. Every output is written to a temporary file first
    and renamed into place. `analyze` adds the analytics of `kg analyze` (`kg.analyze`) after
    the graph's triples. `corrections` is a YAML file of people's
    corrections (`kg.canon.corrections`), read before anything else. `dask` runs the
    extraction as tasks on a Dask cluster (`kg.extract.cluster`); the graph is the same.
    `cache` is the parse cache's folder (`kg.extract.cache`; True: `default_cache_dir()`,
    False: none).
    `shards` > 0 also writes the graph as that many N-Triples files for bulk loaders
    (`kg.rdf.shards`) into `shards_dir` (default: `shards_folder(output)`).
    """
    start = time.perf_counter()
    # What exists now (modules, loaded pipelines) and what each stage keeps lives to the end
    # of the build: the cyclic collector skips it (`_Stages`) instead of rescanning it at
    # every full collection, and forked workers do not copy its pages by touching it.
    gc.freeze()
    try:
        stages = _Stages(on_stage)
        output = Path(output)
        graph_format = GraphFormat.from_name(fmt) if fmt else GraphFormat.from_path(output)
        fixes = read_corrections(corrections) if corrections is not None else []
        report = IngestReport()
        input_list = [str(i) for i in inputs]
        with stages.stage("reading") as done:
            # A record's other fields (`Paper.extra`) are never written to the graph: not kept.
            # The papers wait on disk (`PaperShelf`, issue 14: ~2.5 KB a paper, texts above
            # all, held to the last triple); each stage reads them as it reaches them.
            with_abstract = 0

            def kept(found: Iterable[Paper]) -> Iterator[Paper]:
                nonlocal with_abstract
                for p in found:
                    with_abstract += bool(p.abstract)
                    yield replace(p, extra=()) if p.extra else p

            papers = PaperShelf(kept(read_papers(input_list, report=report, strict=strict,
                                                 limits=limits, input_format=input_format)))
            done.append(f"{len(papers)} papers, {with_abstract} with an abstract, "
                        f"{len(report.skipped)} skipped")
        if with_abstract == 0:
            raise InputError(nothing_to_build(report, len(papers), output))
        callback = progress(with_abstract) if progress is not None else None
        folder = default_cache_dir() if cache is True else (None if cache is False else cache)
        counts = ExtractCounts()
        with stages.stage("extraction") as done:
            extractions = extract_corpus(
                papers, n_process=n_process, progress=callback, config=config, dask=dask,
                cache=folder, counts=counts,
                meanwhile=lambda: prepare_later_stages(store is not None))
            where = f" on {dask.describe()}" if dask is not None else ""
            done.append(counts.format(where) if folder is not None
                        else f"{len(extractions)} papers{where}")
        with stages.stage("canonicalisation and linking") as done, collector_paused():
            # The stage makes the corpus's links and concepts, which live to the end of the
            # build: the collector's full passes walked them again and again. Paused, and what
            # it made frozen before the collector is back (an allocation after that would
            # start a pass over all of it: pausing alone moved the cost to writing). At 35k
            # papers, cut 0.45, paired: 45.8 / 44.7 -> 34.9 / 34.9 s (issue 14).
            # Each paper's mentions, sentences and acronyms go once its links are made.
            corpus = link_corpus(papers, extractions, fixes, release=True)
            corpus.skipped = list(report.skipped)
            # The graph needs of the extractions only the URLs found in the texts: the mentions
            # that no link or relation kept go now.
            corpus.extractions = urls_only(extractions)
            del extractions
            done.append(f"{len(corpus.concepts)} concepts, {len(corpus.links)} links")
            # Counted now: the writer empties `corpus.links` as it reads them.
            links = Counter(link.role for link in corpus.links)
            gc.freeze()
        shards_path = Path(shards_dir) if shards_dir is not None else shards_folder(output)
        with ExitStack() as closing:
            sharded = closing.enter_context(ShardWriter(shards_path, shards)) if shards else None
            with stages.stage("writing") as done:
                # The triples stream from the corpus to the file (and to the shards and the
                # analysis' reader) without ever being held all at once.
                output.parent.mkdir(parents=True, exist_ok=True)
                reader = IncidenceReader() if analyze else None
                copied = ""
                if folder is not None and not sharded and reader is None and reusable(
                        graph_format, output):
                    # With the parse cache: what the previous graph holds unchanged is copied
                    # from it (`kg.rdf.reuse`, issue 14).
                    # With one process asked for, the regions are not made ahead by a
                    # second one (`kg.rdf.ahead`).
                    written = write_reusing(
                        iter_segments(corpus, base=base, include_ontology=True,
                                      release_links=True), output, graph_format, folder,
                        ahead=n_process != 1)
                    triples, copied = written.triples, f"; {written.summary()}"
                else:
                    stream = iter_triples(corpus, base=base, include_ontology=True,
                                          release_links=True)
                    counted = _Counted(sharded.tap(stream) if sharded else stream, reader)
                    write_graph(counted, output, graph_format)
                    triples = counted.count
                done.append(f"{triples} triples to {output}"
                            + (f", {shards} N-Triples shards in {shards_path}" if shards else "")
                            + copied)
            if reader is not None:
                with stages.stage("analysis") as done:
                    # Appended as `kg analyze` appends them, so that both write the same bytes.
                    analytics = analyze_read(reader, base=base)
                    append_triples(output, analytics)
                    if sharded is not None:
                        sharded.add_all(analytics, "analytics.nt")
                    triples += len(analytics)
                    done.append(f"{len(analytics)} triples")
        papers_read = len(papers)
        concepts = _concept_counts(corpus)
        warnings = list(corpus.warnings)
        # The graph is on disk: what the summary needs is counted, the rest goes before the
        # store's bulk loader and the page (which read the file) take their own memory.
        del papers, corpus
        gc.unfreeze()
        if store is not None or html is not None:
            release_memory()
            # What is left (modules, loaded data) lives to the end of the build: the store's
            # own collections skip it (~0.15 s each otherwise).
            gc.freeze()
        store_path = Path(store) if store is not None else None
        if store_path is not None:
            with stages.stage("store load") as done:
                # From the file just written; by difference when it grew (kg.query.delta).
                loaded = load_store(store_path, output)
                done.append(str(store_path) + (
                    f", by difference: {loaded.note}" if loaded.by_difference
                    else f", loaded whole: {loaded.note}" if loaded.note else ""))
        html_path = Path(html) if html is not None else None
        if html_path is not None:
            with stages.stage("page") as done:
                html_path.parent.mkdir(parents=True, exist_ok=True)
                page = render_html(output, source_name=output.name)
                assert isinstance(page, str)  # without a path, the page is returned
                write_atomically(html_path, page, "the page")
                done.append(str(html_path))
        return BuildSummary(
            output=output,
            papers_read=papers_read,
            papers_skipped=len(report.skipped),
            papers_without_abstract=papers_read - with_abstract,
            duplicates=len(report.duplicates),
            concepts=concepts,
            links=links,
            triples=triples,
            seconds=time.perf_counter() - start,
            store=store_path,
            html=html_path,
            warnings=warnings,
            extraction=counts,
        )
    finally:
        gc.unfreeze()


def release_memory() -> None:
    """Collect the garbage, then hand the heap's free pages back to the system (glibc's
    `malloc_trim`; elsewhere nothing more): the corpus just dropped leaves its memory free but
    still the process's, and the store's loader would otherwise add its own on top of it."""
    gc.collect()
    release_free_heap()


def urls_only(extractions: dict[str, Extraction]) -> dict[str, Extraction]:
    """The extractions that found URLs, holding only those (all `kg.rdf` reads of them)."""
    return {paper_id: Extraction(paper_id, urls=e.urls)
            for paper_id, e in extractions.items() if e.urls}


def shards_folder(output: Path) -> Path:
    """Where `kg build --shards` writes by default: `graph.shards/` beside `graph.ttl`."""
    return output.with_name(output.name.split(".")[0] + ".shards")


class _Counted:
    """Triples passing to the writer: counted, and shown to the analysis' reader."""

    def __init__(self, triples: Iterable[Triple], reader: IncidenceReader | None) -> None:
        self.triples = triples
        self.reader = reader
        self.count = 0

    def __iter__(self) -> Iterator[Triple]:
        add = self.reader.add if self.reader is not None else None
        for triple in self.triples:
            self.count += 1
            if add is not None:
                add(triple)
            yield triple


def nothing_to_build(report: IngestReport, papers: int, output: Path) -> str:
    """Why a build read no paper with an abstract: what was read, the fields seen, the fix."""
    sources = list(report.formats)
    parts = [f"no paper with an abstract to build from: read {papers} records"
             f" from {len(sources)} file{'s' if len(sources) != 1 else ''}"]
    if papers:
        parts[0] += ", none with an abstract"
    if report.skipped:
        first = report.skipped[0]
        parts.append(f"{len(report.skipped)} skipped (first: {first.source}"
                     f"{'' if first.record == 0 else f', record {first.record}'}: {first.reason})")
    for source in sources[:5]:
        seen = report.fields.get(source, [])
        shown = ", ".join(repr(name) for name in seen[:25]) + (", …" if len(seen) > 25 else "")
        table = report.tables.get(source)
        how = (f"read as {table[0]}, the abstract from {' or '.join(map(repr, table[1]))}; "
               if table else "")  # fmt: skip
        parts.append(f"{source} ({report.formats[source]}): {how}"
                     + (f"fields with a value: {shown}" if seen else "no records"))
    parts.append("an abstract is read from a field named 'abstract' (any case), or from a known "
                 "export's own field (Zotero CSV 'Abstract Note', OpenAlex "
                 "'abstract_inverted_index', OpenReview 'content.abstract', arXiv Atom "
                 "'summary', RIS 'AB', MEDLINE 'AB'); rename the field, or export the abstracts")
    parts.append(f"nothing was written ({output} is unchanged)")
    return ".\n  ".join(parts)


def _concept_counts(corpus: Corpus) -> Counter[ConceptType]:
    return Counter(c.ctype for c in corpus.concepts.values())
