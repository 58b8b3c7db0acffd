"""`kg build` as a library call: input files -> graph file (+ store, + browser page).

    from kg.build import run_build
    summary = run_build(["examples/iclr2025_abstracts.txt"], "out/graph.ttl")
    print(summary.format())
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg.namespaces import DEFAULT_BASE
from kg.types import ConceptType, Corpus, Role

if TYPE_CHECKING:
    from kg.extract import ExtractorConfig

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
    from kg.ingest import IngestReport, read_papers
    from kg.pipeline import build_corpus
    from kg.rdf import GraphFormat, build_triples, write_graph

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
        from kg.store import load_store

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
