"""`kg build` as a library call: the one place that runs the stages in order.

read (`kg.ingest`) -> extract (`kg.extract`) -> canonicalise (`kg.canon`) -> link to the
vocabularies (`kg.vocab`) -> triples (`kg.rdf`) -> graph file, store (`kg.query.store`), page
(`viz`).

    from kg.build import run_build
    summary = run_build(["examples/iclr2025_abstracts.txt"], "out/graph.ttl")
    print(summary.format())
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kg.canon.concepts import canonicalise
from kg.canon.relations import canonical_relations
from kg.extract import ExtractorConfig
from kg.extract.extractor import cached_extractor, parallel_extract
from kg.ingest import IngestReport, read_papers
from kg.namespaces import DEFAULT_BASE
from kg.query.store import load_store
from kg.rdf import GraphFormat, build_triples, write_graph
from kg.types import ConceptType, Corpus, Extraction, Paper, Role
from kg.vocab.matching import match_vocabularies

ProgressCallback = Callable[[int], None]
"""Called with the number of papers just extracted."""

# Below this many papers, worker start-up (loading spaCy in each) costs more than it saves.
PARALLEL_THRESHOLD = 400


def default_processes(n_papers: int) -> int:
    """Worker processes for a corpus of `n_papers`: all cores for large corpora, else 1."""
    if n_papers < PARALLEL_THRESHOLD:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


def extract_corpus(
    papers: list[Paper],
    *,
    n_process: int | None = None,
    progress: ProgressCallback | None = None,
    config: ExtractorConfig | None = None,
) -> dict[str, Extraction]:
    """Extractions of every paper that has an abstract, by paper id."""
    config = config or ExtractorConfig()
    todo = [p for p in papers if p.abstract]
    processes = default_processes(len(todo)) if n_process is None else n_process
    stream = (
        cached_extractor(config).extract_all(todo)
        if processes <= 1
        else parallel_extract(todo, n_process=processes, batch_size=32, config=config)
    )
    results: dict[str, Extraction] = {}
    for extraction in stream:
        results[extraction.paper_id] = extraction
        if progress is not None:
            progress(1)
    return results


def build_corpus(
    papers: Iterable[Paper],
    *,
    n_process: int | None = None,
    progress: ProgressCallback | None = None,
    config: ExtractorConfig | None = None,
) -> Corpus:
    """Extract and canonicalise `papers` into a `Corpus`."""
    paper_list = list(papers)
    extractions = extract_corpus(paper_list, n_process=n_process, progress=progress,
                                 config=config)
    concepts, links = canonicalise(paper_list, extractions)
    relations = canonical_relations(paper_list, extractions, concepts)
    return Corpus(papers=paper_list, extractions=extractions, concepts=concepts, links=links,
                  relations=relations, matches=match_vocabularies(concepts.values()))


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
) -> BuildSummary:
    """Read `inputs`, extract and canonicalise, write the graph to `output` (format from
    `fmt` or the file extension), optionally load it into an Oxigraph store and draw the page.
    """
    start = time.perf_counter()
    output = Path(output)
    graph_format = GraphFormat.from_name(fmt) if fmt else GraphFormat.from_path(output)
    report = IngestReport()
    papers = list(read_papers(inputs, report=report, strict=strict))
    with_abstract = sum(1 for p in papers if p.abstract)
    callback = progress(with_abstract) if progress is not None else None
    corpus = build_corpus(papers, n_process=n_process, progress=callback, config=config)
    corpus.skipped = list(report.skipped)
    triples = build_triples(corpus, base=base, include_ontology=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_graph(triples, output, graph_format)
    store_path = Path(store) if store is not None else None
    if store_path is not None:
        load_store(store_path, triples)
    html_path = Path(html) if html is not None else None
    if html_path is not None:
        from viz import render_html

        html_path.parent.mkdir(parents=True, exist_ok=True)
        render_html(triples, html_path, source_name=output.name)
    return BuildSummary(
        output=output,
        papers_read=len(papers),
        papers_skipped=len(report.skipped),
        papers_without_abstract=len(papers) - with_abstract,
        duplicates=len(report.duplicates),
        concepts=_concept_counts(corpus),
        links=Counter(link.role for link in corpus.links),
        triples=len(triples),
        seconds=time.perf_counter() - start,
        store=store_path,
        html=html_path,
    )


def _concept_counts(corpus: Corpus) -> Counter[ConceptType]:
    return Counter(c.ctype for c in corpus.concepts.values())
