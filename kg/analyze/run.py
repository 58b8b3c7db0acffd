"""`kg analyze` as library calls: read the paper–concept links, compute, write back.

`analyze(incidence, config)` computes an `Analysis`; `analyze_file` and `analyze_store` read a
graph file or an Oxigraph store and write the analytics into it (a previous analysis is
replaced). A graph file is streamed, never held in memory (N-Triples: only the lines that matter are
parsed); the output is the graph followed by the analytics triples in canonical order, so
`kg build --analyze` and `kg build` then `kg analyze` write the same bytes.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

import pyoxigraph as ox

from kg.analyze.centrality import link_strength, pagerank
from kg.analyze.communities import community_label, find_communities
from kg.analyze.config import AnalyzeConfig
from kg.analyze.cooccurrence import cooccurrence_network
from kg.analyze.incidence import Incidence, IncidenceReader, read_file, read_store
from kg.analyze.rdf import PAGE_RANK, analytics_triples, ask_query, delete_update, is_analytics
from kg.analyze.results import Analysis
from kg.analyze.similarity import related_concepts, similar_papers
from kg.analyze.trends import concept_trend
from kg.errors import InputError, KGError
from kg.namespaces import DEFAULT_BASE, PREFIXES
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
             network.graph.number_of_nodes(), network.graph.number_of_edges(),
             time.perf_counter() - started)
    paper_rank, concept_rank = pagerank(inc)
    communities = find_communities(network.graph.nodes, network.links, seed=config.seed,
                                   resolution=config.resolution, key=inc.concepts.__getitem__,
                                   backbone_links=config.community_links)
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
    trends = [
        concept_trend(years, year_totals, scale=config.burst_scale, cost=config.burst_cost)
        if j in network.graph else None
        for j, years in enumerate(concept_years)
    ]
    similar = similar_papers(inc, k=config.similar_papers, max_papers=config.similar_max_papers)
    log.info("similar papers (%.1f s)", time.perf_counter() - started)
    related = related_concepts(network.graph, k=config.related_concepts,
                               min_shared=config.min_shared)
    return Analysis(inc, communities, labels, link_strength(network.graph), paper_rank,
                    concept_rank, trends, similar, related, network.graph.number_of_edges())


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
    inc, replaced = read_file(source, marker=PAGE_RANK)
    analysis = analyze(inc, config)
    triples = analytics_triples(analysis, base=base)
    if not replaced and _same_format(source, target):
        head: Iterable[ox.Triple | ox.Quad] | Path = source
    else:
        head = _without_analytics(source, base)
    _write(target, fmt, head, triples)
    return _report(target, analysis, len(triples), replaced, started)


def analyze_store(
    store_dir: str | Path, *, config: AnalyzeConfig | None = None, base: str = DEFAULT_BASE
) -> AnalyzeReport:
    """Analyse the graph in an Oxigraph store folder and write the analytics into it (through
    `kg.query.store.load_store`, so the store's indexes are rebuilt and a failure changes
    nothing)."""
    started = time.perf_counter()
    store_dir = Path(store_dir)
    live = open_read_only(store_dir)
    replaced = bool(live.query(ask_query(), use_default_graph_as_union=True))
    if not replaced:
        analysis = analyze(read_store(live), config)
        del live
        triples = analytics_triples(analysis, base=base)
        load_store(store_dir, triples, replace=False)
        return _report(store_dir, analysis, len(triples), replaced, started)
    with tempfile.TemporaryDirectory(prefix="kg-analyze-", dir=store_dir.parent) as tmp:
        copy = Path(tmp) / "store"
        live.backup(str(copy))
        del live
        work = ox.Store(str(copy))
        _strip(work)
        analysis = analyze(read_store(work), config)
        triples = analytics_triples(analysis, base=base)
        dump = Path(tmp) / "graph.nt"
        with dump.open("wb") as out:
            work.dump(out, ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
            ox.serialize(triples, out, ox.RdfFormat.N_TRIPLES)
        del work
        load_store(store_dir, dump, replace=True)
    return _report(store_dir, analysis, len(triples), replaced, started)


def _without_analytics(path: Path, base: str) -> Iterator[ox.Triple | ox.Quad]:
    """The triples of a graph file without those of a previous analysis."""
    ox_format = file_format(path).oxigraph
    with open_binary(path) as data:
        for triple in ox.parse(data, ox_format):
            if not is_analytics(triple, base):
                yield triple


def _strip(store: ox.Store) -> bool:
    """Remove a previous analysis; True when there was one."""
    if not store.query(ask_query(), use_default_graph_as_union=True):
        return False
    store.update(delete_update())
    return True


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
            _serialize(triples, raw, fmt, zipped=target.name.lower().endswith(".gz"))
    except OSError as exc:
        raise KGError(f"{target}: cannot write the graph ({exc}); check the directory") from exc


def _appendable(target: Path) -> GraphFormat:
    fmt = GraphFormat.from_path(target)
    if fmt is GraphFormat.JSONLD:
        raise InputError("kg analyze writes Turtle or N-Triples: name the output .ttl or .nt",
                         source=str(target))
    return fmt


def _serialize(triples: Iterable[ox.Triple], raw: IO[bytes], fmt: GraphFormat, *,
               zipped: bool) -> None:
    import gzip

    if not zipped:
        ox.serialize(triples, raw, fmt.rdf_format, prefixes=PREFIXES)
        return
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as sink:
        ox.serialize(triples, cast(IO[bytes], sink), fmt.rdf_format, prefixes=PREFIXES)


def _write(target: Path, fmt: GraphFormat, head: Path | Iterable[ox.Triple | ox.Quad],
           triples: list[ox.Triple]) -> None:
    """Write the graph (the bytes of the file `head`, or the triples `head`) then the
    analytics, to a temporary file renamed over `target`."""
    zipped = target.name.lower().endswith(".gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    with replacing(target) as raw:
        if isinstance(head, Path):
            with head.open("rb") as original:
                shutil.copyfileobj(original, raw, 1 << 20)
        else:
            graph = (ox.Triple(t.subject, t.predicate, t.object) for t in head)
            _serialize(graph, raw, fmt, zipped=zipped)
        _serialize(triples, raw, fmt, zipped=zipped)


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
