#!/usr/bin/env python
"""Measure `kg analyze`: wall time and peak memory (RSS) on a graph file.

    python scripts/bench_analyze.py out/graph.nt            # the 35k-paper graph: the target
    python scripts/bench_analyze.py ../shared/…/graph.ttl --runs 3
    python scripts/bench_analyze.py --store out/graph.db             # a store, analysed in a copy
    python scripts/bench_analyze.py --synthetic 35000 --networkx-louvain

`--synthetic N` analyses, in this process, a synthetic incidence of N papers (9 concepts each
from a Zipf vocabulary, 40 topics, years 2016–2025: the shape of the 35k paperlists) and prints
each stage's seconds and the peak RSS; `--networkx-louvain` also times networkx's pure-Python
Louvain on the same backbone, the detection `kg analyze` used before igraph's Leiden.

Each run analyses GRAPH into a temporary copy in a fresh process (`kg analyze GRAPH -o TMP`),
so the peak RSS is that process's alone (`ru_maxrss` of the child); with `--store DIR`, each run
copies the store (not timed) and runs `kg analyze --store COPY`. Prints the summary of the last
run and, per run, seconds and peak RSS; the issue's target on the 35k-paper graph is 60 s and
2 GB.
"""

from __future__ import annotations

import argparse
import itertools
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perf_doc import recording

from kg.analyze import analyze
from kg.analyze.communities import backbone, find_communities
from kg.analyze.config import AnalyzeConfig
from kg.analyze.cooccurrence import cooccurrence_network
from kg.analyze.incidence import Incidence
from kg.analyze.rdf import analytics_triples


def run_once(args: list[str]) -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, the command's summary) of one `kg analyze ARGS` in a new
    process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "kg"), "analyze", *args],
        capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"kg analyze failed ({done.returncode}): {done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024, done.stdout


def synthetic_incidence(n_papers: int, seed: int = 0) -> Incidence:
    """N papers with ~9 concepts each: 60 % from their topic's slice of a Zipf vocabulary,
    the rest from the whole vocabulary (common concepts shared by every topic)."""
    rng = random.Random(seed)
    n_concepts, topics = int(n_papers * 87 / 35), 40
    cum = list(itertools.accumulate(1.0 / (i + 1) ** 1.05 for i in range(n_concepts)))
    drawn: list[list[int]] = []
    for _ in range(n_papers):
        topic = rng.randrange(topics)
        chosen = set()
        for _ in range(9):
            j = rng.choices(range(n_concepts), cum_weights=cum)[0]
            if rng.random() < 0.6 and j >= 200:
                j = (j // topics) * topics + topic
            chosen.add(min(j, n_concepts - 1))
        drawn.append(sorted(chosen))
    used = sorted({j for row in drawn for j in row})
    number = {j: k for k, j in enumerate(used)}
    base = "https://w3id.org/paperkg/resource/"
    return Incidence([f"{base}paper/p{i:06d}" for i in range(n_papers)],
                     [f"{base}concept/c{j:06d}" for j in used],
                     [[number[j] for j in row] for row in drawn],
                     [2016 + rng.randrange(10) for _ in range(n_papers)],
                     [f"c{j}" for j in used])


def synthetic(n_papers: int, networkx_louvain: bool) -> None:
    """Analyse a synthetic incidence in this process, stage by stage."""
    config = AnalyzeConfig()
    start = time.perf_counter()
    inc = synthetic_incidence(n_papers)
    print(f"synthetic incidence: {n_papers:,} papers, {len(inc.concepts):,} concepts, "
          f"{sum(map(len, inc.paper_concepts)):,} links ({time.perf_counter() - start:.1f} s)")
    start = time.perf_counter()
    network = cooccurrence_network(inc, min_papers=config.min_papers)
    print(f"co-occurrence network: {len(network.nodes):,} concepts, "
          f"{len(network.links.source):,} links ({time.perf_counter() - start:.1f} s)")
    start = time.perf_counter()
    found = find_communities(network.nodes.tolist(), network.links, seed=config.seed,
                             backbone_links=config.community_links)
    print(f"Leiden (igraph) on the backbone: {len(found)} communities "
          f"({time.perf_counter() - start:.1f} s)")
    if networkx_louvain:
        import networkx as nx

        keep = backbone(network.links, config.community_links)
        graph: nx.Graph = nx.Graph()
        graph.add_nodes_from(network.nodes.tolist())
        graph.add_weighted_edges_from(zip(network.links.source[keep].tolist(),
                                          network.links.target[keep].tolist(),
                                          network.links.weight[keep].tolist(), strict=True))
        start = time.perf_counter()
        louvain = nx.community.louvain_communities(graph, weight="weight", seed=config.seed)
        print(f"networkx Louvain on the same backbone: "
              f"{sum(1 for c in louvain if len(c) > 1)} communities "
              f"({time.perf_counter() - start:.1f} s)")
    start = time.perf_counter()
    analysis = analyze(inc, config)
    triples = analytics_triples(analysis, base="https://w3id.org/paperkg/resource/")
    print(f"kg.analyze.analyze + triples, end to end: {len(triples):,} triples "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", type=Path, nargs="?",
                        help="graph file to analyse (.ttl or .nt, .gz too)")
    parser.add_argument("--store", type=Path, metavar="DIR",
                        help="analyse (a copy of) this Oxigraph store instead of a file")
    parser.add_argument("--synthetic", type=int, metavar="N",
                        help="analyse a synthetic corpus of N papers instead of a file")
    parser.add_argument("--networkx-louvain", action="store_true",
                        help="with --synthetic: also time networkx's Louvain on the backbone")
    parser.add_argument("--runs", type=int, default=1, help="runs (each in a fresh process)")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    if args.synthetic:
        synthetic(args.synthetic, args.networkx_louvain)
        return
    if (args.graph is None) == (args.store is None):
        parser.error("give a GRAPH file, --store DIR or --synthetic N")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            if args.store is not None:
                copy = Path(tmp) / f"store{i}"
                shutil.copytree(args.store, copy)
                seconds, peak, summary = run_once(["--store", str(copy)])
                shutil.rmtree(copy)
            else:
                graph = args.graph
                suffix = "".join(graph.suffixes[-2:]) if graph.name.endswith(".gz") else \
                    graph.suffix
                seconds, peak, summary = run_once([str(graph), "-o", str(Path(tmp) /
                                                                         f"out{i}{suffix}")])
            rows.append((seconds, peak))
    print(summary.rstrip())
    print(f"{'run':>3} {'seconds':>8} {'peak RSS MB':>11}")
    for i, (seconds, peak) in enumerate(rows, start=1):
        print(f"{i:>3} {seconds:>8.1f} {peak:>11.0f}")


if __name__ == "__main__":
    with recording("analyze", enabled="--no-doc" not in sys.argv):
        main()
