"""The build pipeline as one call: read -> extract -> canonicalise, into a `Corpus`.

Graph building and serialisation (`kg.rdf`) take the `Corpus` from here; the CLI's `kg build`
is a thin wrapper around `build_corpus` + `kg.rdf.write_graph`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kg.canon import canonicalise
from kg.relations import canonical_relations
from kg.types import Corpus, Extraction, Paper

if TYPE_CHECKING:
    from kg.extract import ExtractorConfig

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
    from kg.extract import ExtractorConfig, _parallel, cached_extractor

    config = config or ExtractorConfig()
    todo = [p for p in papers if p.abstract]
    processes = default_processes(len(todo)) if n_process is None else n_process
    stream = (
        cached_extractor(config).extract_all(todo)
        if processes <= 1
        else _parallel(todo, n_process=processes, batch_size=32, config=config)
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
    from kg.link import match_vocabularies  # PwC/CSO links (kg/link.py)
    return Corpus(papers=paper_list, extractions=extractions, concepts=concepts, links=links,
                  relations=relations, matches=match_vocabularies(concepts.values()))


def read_and_build(
    paths: Iterable[str | Path], *, strict: bool = False, **kwargs: object
) -> Corpus:
    """Read input files (see `kg.ingest`) and build their corpus."""
    from kg.ingest import IngestReport, read_papers

    report = IngestReport()
    papers = list(read_papers(paths, report=report, strict=strict))
    corpus = build_corpus(papers, **kwargs)  # type: ignore[arg-type]
    corpus.skipped = list(report.skipped)
    return corpus
