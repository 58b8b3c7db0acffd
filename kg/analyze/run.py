"""`kg analyze` as library calls: read the paper–concept links, compute, write back.

`analyze(incidence, config)` computes an `Analysis`; `analyze_file` and `analyze_store` read a
graph file or an Oxigraph store and write the analytics into it (a previous analysis is
replaced). A graph file is streamed, never held in memory (only the statements that matter
are parsed, `kg.analyze.filescan`); the output is the graph's bytes followed by a comment line
giving the analytics' length and the analytics triples in canonical order, so `kg build
--analyze` and `kg build` then `kg analyze` write the same bytes, and a new analysis of an
analysed file copies the bytes before that line and appends its own (the bytes of analysing the
graph afresh).
"""

from __future__ import annotations

import gzip
import logging
import shutil
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

import pyoxigraph as ox

from kg.analyze.centrality import link_strength, pagerank
from kg.analyze.communities import community_label, find_communities
from kg.analyze.config import AnalyzeConfig
from kg.analyze.cooccurrence import cooccurrence_network
from kg.analyze.filescan import read_file, tail_mark
from kg.analyze.incidence import Incidence, IncidenceReader, read_store
from kg.analyze.rdf import (
    PAGE_RANK,
    analytics_ntriples,
    analytics_triples,
    ask_query,
    delete_update,
    is_analytics,
)
from kg.analyze.results import Analysis
from kg.analyze.similarity import related_concepts, similar_papers
from kg.analyze.trends import concept_trend
from kg.errors import InputError, KGError
from kg.namespaces import DEFAULT_BASE, PREFIXES
from kg.query.labels import INDEX_GRAPH
from kg.query.store import load_store
from kg.rdf.formats import GraphFormat
from kg.rdf.io import file_format, open_binary, open_read_only
from kg.rdf.serialize import replacing

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AnalyzeReport:
    """What one analysis found and wrote."""

    output: Path
    papers: int
    concepts: int
    network_concepts: int
    network_links: int
    communities: int
    similar: int
    related: int
    triples: int
    replaced: bool
    seconds: float

    def format(self) -> str:
        """The closing summary `kg analyze` prints."""
        rows = [
            ("papers", f"{self.papers:,}"),
            ("concepts", f"{self.concepts:,}"),
            ("network concepts", f"{self.network_concepts:,}"),
            ("network links", f"{self.network_links:,}"),
            ("communities", f"{self.communities:,}"),
            ("similar papers", f"{self.similar:,}"),
            ("related concepts", f"{self.related:,}"),
            ("triples added", f"{self.triples:,}"),
            ("replaced", "a previous analysis" if self.replaced else "nothing"),
            ("seconds", f"{self.seconds:.1f}"),
            ("graph", str(self.output)),
        ]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def analyze(inc: Incidence, config: AnalyzeConfig | None = None) -> Analysis:
    """Every analytic of the incidence (see the modules of `kg.analyze`)."""
    config = config or AnalyzeConfig()
    started = time.perf_counter()
    network = cooccurrence_network(inc, min_papers=config.min_papers)
    log.info("co-occurrence network: %d concepts, %d links (%.1f s)",
             len(network.nodes), len(network.links.source), time.perf_counter() - started)
    paper_rank, concept_rank = pagerank(inc)
    communities = find_communities(network.nodes.tolist(), network.links, seed=config.seed,
                                   resolution=config.resolution, key=inc.concepts.__getitem__,
                                   backbone_links=config.community_links,
                                   iterations=config.leiden_iterations)
    log.info("%d communities (%.1f s)", len(communities), time.perf_counter() - started)
    labels = [community_label(c.members, inc.labels, concept_rank, config.label_concepts)
              for c in communities]
    year_totals = Counter(y for y in inc.years if y is not None)
    concept_years: list[list[int]] = [[] for _ in inc.concepts]
    for linked, paper_year in zip(inc.paper_concepts, inc.years, strict=True):
        if paper_year is not None:
            for j in linked:
                concept_years[j].append(paper_year)
    # Trends of the network's concepts only: a concept in fewer papers has no trend to speak of.
    in_network = network.member()
    trends = [
        concept_trend(years, year_totals, scale=config.burst_scale, cost=config.burst_cost)
        if in_network[j] else None
        for j, years in enumerate(concept_years)
    ]
    similar = similar_papers(inc, k=config.similar_papers, max_papers=config.similar_max_papers)
    log.info("similar papers (%.1f s)", time.perf_counter() - started)
    related = related_concepts(network.links, k=config.related_concepts,
                               min_shared=config.min_shared)
    return Analysis(inc, communities, labels, link_strength(network), paper_rank,
                    concept_rank, trends, similar, related, len(network.links.source))


def analyze_triples(
    triples: Iterable[ox.Triple], *, config: AnalyzeConfig | None = None, base: str = DEFAULT_BASE
) -> list[ox.Triple]:
    """The analytics triples of a graph given as triples (`kg build --analyze`)."""
    reader = IncidenceReader()
    reader.add_all(triples)
    return analyze_read(reader, config=config, base=base)


def analyze_read(
    reader: IncidenceReader, *, config: AnalyzeConfig | None = None, base: str = DEFAULT_BASE
) -> list[ox.Triple]:
    """The analytics triples of the graph a reader has seen (`kg build --analyze` feeds it
    the triples as they stream to the graph file)."""
    return analytics_triples(analyze(reader.incidence(), config), base=base)


def analyze_file(
    graph: str | Path,
    output: str | Path | None = None,
    *,
    config: AnalyzeConfig | None = None,
    base: str = DEFAULT_BASE,
) -> AnalyzeReport:
    """Analyse the graph file `graph` and write it with its analytics to `output` (default:
    `graph` itself, replaced atomically). The output is Turtle or N-Triples (by its name)."""
    started = time.perf_counter()
    source = Path(graph)
    target = Path(output) if output is not None else source
    fmt = _appendable(target)
    scan = read_file(source, marker=PAGE_RANK)
    log.info("read %s (%.1f s)", source, time.perf_counter() - started)
    analysis = analyze(scan.incidence, config)
    triples = analytics_ntriples(analysis, base=base)
    count = triples.count(b"\n")
    log.info("analysis: %d triples (%.1f s)", count, time.perf_counter() - started)
    head: _Head | Iterable[ox.Triple | ox.Quad]
    if _same_format(source, target) and (not scan.analysed or scan.tail is not None):
        head = _Head(source, scan.tail)  # the graph's own bytes, without a previous tail
    else:
        head = _without_analytics(source, base)
    _write(target, fmt, head, triples)
    log.info("wrote %s (%.1f s)", target, time.perf_counter() - started)
    return _report(target, analysis, count, scan.analysed, started)


def analyze_store(
    store_dir: str | Path, *, config: AnalyzeConfig | None = None, base: str = DEFAULT_BASE
) -> AnalyzeReport:
    """Analyse the graph in an Oxigraph store folder and write the analytics into it (through
    `kg.query.store.load_store`: a copy of the store has a previous analysis removed and the new
    one added, its indexes are rebuilt and it replaces the store, so a failure changes
    nothing)."""
    started = time.perf_counter()
    store_dir = Path(store_dir)
    live = open_read_only(store_dir)
    replaced = bool(live.query(ask_query(), use_default_graph_as_union=True))
    # The incidence's predicates are never the analytics': read before the old ones go.
    analysis = analyze(read_store(live), config)
    del live
    triples = analytics_ntriples(analysis, base=base)
    count = triples.count(b"\n")
    log.info("analysis: %d triples (%.1f s)", count, time.perf_counter() - started)
    strip = delete_update(base, INDEX_GRAPH)
    load_store(store_dir, ox.parse(triples, ox.RdfFormat.N_TRIPLES), replace=False,
               edit=(lambda store: store.update(strip)) if replaced else None)
    return _report(store_dir, analysis, count, replaced, started)


@dataclass(frozen=True, slots=True)
class _Head:
    """The bytes of the graph file `path` (uncompressed bytes if gzipped) up to `end`, or all
    of them."""

    path: Path
    end: int | None


def _without_analytics(path: Path, base: str) -> Iterator[ox.Triple | ox.Quad]:
    """The triples of a graph file without those of a previous analysis."""
    ox_format = file_format(path).oxigraph
    with open_binary(path) as data:
        for triple in ox.parse(data, ox_format):
            if not is_analytics(triple, base):
                yield triple


def _same_format(source: Path, target: Path) -> bool:
    def kind(path: Path) -> tuple[str, bool]:
        gz = path.name.lower().endswith(".gz")
        return GraphFormat.from_path(path).value if _known(path) else "", gz

    return kind(source) == kind(target) and kind(source)[0] != ""


def _known(path: Path) -> bool:
    try:
        GraphFormat.from_path(path)
    except InputError:
        return False
    return True


def append_triples(path: str | Path, triples: list[ox.Triple]) -> None:
    """Append `triples` to a Turtle or N-Triples file (a gzip member of their own when it is
    gzipped): how the analytics follow the graph, in `kg analyze` and `kg build --analyze`."""
    target = Path(path)
    fmt = _appendable(target)
    try:
        with target.open("ab") as raw:
            _serialize(triples, raw, fmt, zipped=target.name.lower().endswith(".gz"), tail=True)
    except OSError as exc:
        raise KGError(f"{target}: cannot write the graph ({exc}); check the directory") from exc


def _appendable(target: Path) -> GraphFormat:
    fmt = GraphFormat.from_path(target)
    if fmt is GraphFormat.JSONLD:
        raise InputError("kg analyze writes Turtle or N-Triples: name the output .ttl or .nt",
                         source=str(target))
    return fmt


def _serialize(triples: Iterable[ox.Triple] | bytes, raw: IO[bytes], fmt: GraphFormat, *,
               zipped: bool, tail: bool = False) -> None:
    """Write `triples` (or the triples of N-Triples text) to `raw` (as a gzip member of their
    own if `zipped`); as the analytics' `tail`, after the comment line that gives their
    length."""
    if not zipped:
        _serialize_plain(triples, raw, fmt, tail=tail)
        return
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as sink:
        _serialize_plain(triples, cast(IO[bytes], sink), fmt, tail=tail)


def _serialize_plain(triples: Iterable[ox.Triple] | bytes, raw: IO[bytes], fmt: GraphFormat,
                     *, tail: bool) -> None:
    if isinstance(triples, bytes):
        triples = (t.triple for t in ox.parse(triples, ox.RdfFormat.N_TRIPLES))
    if not tail:
        ox.serialize(triples, raw, fmt.rdf_format, prefixes=PREFIXES)
        return
    data = ox.serialize(triples, None, fmt.rdf_format, prefixes=PREFIXES)
    assert data is not None  # pyoxigraph returns bytes when no output is given
    raw.write(tail_mark(len(data)))
    raw.write(data)


def _write(target: Path, fmt: GraphFormat, head: _Head | Iterable[ox.Triple | ox.Quad],
           triples: bytes) -> None:
    """Write the graph (bytes of a file, or triples) then the analytics, to a temporary file
    renamed over `target`."""
    zipped = target.name.lower().endswith(".gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    with replacing(target) as raw:
        if isinstance(head, _Head):
            _copy_head(head, raw, zipped=zipped)
        else:
            graph = (ox.Triple(t.subject, t.predicate, t.object) for t in head)
            _serialize(graph, raw, fmt, zipped=zipped)
        _serialize(triples, raw, fmt, zipped=zipped, tail=True)


def _copy_head(head: _Head, raw: IO[bytes], *, zipped: bool) -> None:
    """Copy the file's bytes (a gzipped file's up to `end` go into one new gzip member)."""
    if head.end is None:
        with head.path.open("rb") as original:
            shutil.copyfileobj(original, raw, 1 << 20)
        return
    with ExitStack() as stack:
        source = stack.enter_context(open_binary(head.path))
        sink: IO[bytes] = raw
        if zipped:
            sink = cast(IO[bytes], stack.enter_context(
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)))
        left = head.end
        while left:
            chunk = source.read(min(left, 1 << 20))
            if not chunk:
                raise KGError(f"{head.path}: the file changed while it was analysed")
            sink.write(chunk)
            left -= len(chunk)


def _report(output: Path, analysis: Analysis, triples: int, replaced: bool,
            started: float) -> AnalyzeReport:
    inc = analysis.incidence
    return AnalyzeReport(
        output=output,
        papers=len(inc.papers),
        concepts=len(inc.concepts),
        network_concepts=len(analysis.link_strength),
        network_links=analysis.network_links,
        communities=len(analysis.communities),
        similar=len(analysis.similar),
        related=len(analysis.related),
        triples=triples,
        replaced=replaced,
        seconds=time.perf_counter() - started,
    )
