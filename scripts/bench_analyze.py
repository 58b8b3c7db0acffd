#!/usr/bin/env python
"""Measure `kg analyze`: wall time and peak memory (RSS) on a graph file.

    python scripts/bench_analyze.py out/graph.nt            # the 35k-paper graph: the target
    python scripts/bench_analyze.py ../shared/…/graph.ttl --runs 3

Each run analyses GRAPH into a temporary copy in a fresh process (`kg analyze GRAPH -o TMP`),
so the peak RSS is that process's alone (`ru_maxrss` of the child). Prints the summary of the
last run and, per run, seconds and peak RSS; the issue's target on the 35k-paper graph is
60 s and 2 GB.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perf_doc import recording


def run_once(graph: Path, out: Path) -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, the command's summary) of one `kg analyze` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "kg"), "analyze", str(graph), "-o", str(out)],
        capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"kg analyze failed ({done.returncode}): {done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", type=Path, help="graph file to analyse (.ttl or .nt, .gz too)")
    parser.add_argument("--runs", type=int, default=1, help="runs (each in a fresh process)")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    suffix = "".join(args.graph.suffixes[-2:]) if args.graph.name.endswith(".gz") else \
        args.graph.suffix
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            seconds, peak, summary = run_once(args.graph, Path(tmp) / f"out{i}{suffix}")
            rows.append((seconds, peak))
    print(summary.rstrip())
    print(f"{'run':>3} {'seconds':>8} {'peak RSS MB':>11}")
    for i, (seconds, peak) in enumerate(rows, start=1):
        print(f"{i:>3} {seconds:>8.1f} {peak:>11.0f}")


if __name__ == "__main__":
    with recording("analyze", enabled="--no-doc" not in sys.argv):
        main()
