"""Build-speed benchmark: the whole `kg build` against a bare spaCy run over the same texts.

    python scripts/bench_build.py [--input ../shared/data/paperlists/colm2025.json.gz]
                                  [--rounds 3] [--processes N]

Each round times, in this order and in this one process:
  1. bare `nlp.pipe` of en_core_web_sm with all its components, over the titles and abstracts;
  2. bare `nlp.pipe` with the components the build runs (its OntoNotes `ner` excluded);
  3. the whole build without the trained entity recogniser (rules + gazetteer);
  4. the whole build as `kg build` runs it (rules + gazetteer + recogniser): read, load,
     extract, canonicalise, link, build triples, write Turtle, into a temporary folder.
Both spaCy runs use the same number of processes as the build. The machine is shared and
noisy, so the ratios are taken within a round and the medians reported. Peak RSS covers this
process and its worker processes.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import spacy
from perf_doc import recording

from kg.build import default_processes, run_build
from kg.extract import ExtractorConfig
from kg.extract.nlp import EXCLUDE, english_model_name
from kg.extract.textfix import repair
from kg.ingest import read_papers

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT.parent / "shared" / "data" / "paperlists" / "colm2025.json.gz"


def _texts(path: Path) -> list[str]:
    texts = []
    for paper in read_papers([path]):
        if paper.abstract:
            texts += [t for t in (paper.title, paper.abstract) if t]
    return texts


def _pipe_seconds(nlp: spacy.language.Language, texts: list[str], processes: int) -> float:
    start = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=64, n_process=processes):
        pass
    return time.perf_counter() - start


def _peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=None,
                        help="worker processes for the build and both spaCy runs "
                        "(default: what kg build chooses for this input)")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    texts = _texts(args.input)
    papers = sum(1 for p in read_papers([args.input]) if p.abstract)
    processes = args.processes or default_processes(papers)
    model = english_model_name()
    full = spacy.load(model)
    lean = spacy.load(model, exclude=list(EXCLUDE))
    repaired = [repair(t).text for t in texts]
    print(f"input: {args.input.name}: {papers} papers with abstracts, {len(texts)} texts; "
          f"model {model}; {processes} process(es)")
    print("| round | bare spaCy, all components (s) | bare spaCy, build's components (s) "
          "| build, rules + gazetteer (s) | build, + recogniser (s) "
          "| rules build / bare same | full build / bare same | full / rules build |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for n in range(1, args.rounds + 1):
        bare_full = _pipe_seconds(full, texts, processes)
        bare_lean = _pipe_seconds(lean, repaired, processes)
        timings = []
        for config in (ExtractorConfig(entity_model=False), ExtractorConfig()):
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                summary = run_build([args.input], Path(tmp) / "graph.ttl", n_process=processes,
                                    config=config, cache=False)  # every round parses
                timings.append(time.perf_counter() - start)
        rules, whole = timings
        rows.append((bare_full, bare_lean, rules, whole))
        print(f"| {n} | {bare_full:.1f} | {bare_lean:.1f} | {rules:.1f} | {whole:.1f} "
              f"| {rules / bare_lean:.2f} | {whole / bare_lean:.2f} | {whole / rules:.2f} |")
        sys.stdout.flush()
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    ratio = [statistics.median(r[i] / r[j] for r in rows) for i, j in ((2, 1), (3, 1), (3, 2))]
    print(f"| median | {med[0]:.1f} | {med[1]:.1f} | {med[2]:.1f} | {med[3]:.1f} "
          f"| {ratio[0]:.2f} | {ratio[1]:.2f} | {ratio[2]:.2f} |")
    print(f"papers/s (full build, median): {papers / med[3]:.1f}")
    print(f"triples: {summary.triples}; concepts: {sum(summary.concepts.values())}; "
          f"links: {sum(summary.links.values())}")
    print(f"peak RSS: {_peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    with recording("build", enabled="--no-doc" not in sys.argv):
        code = main()
    sys.exit(code)
