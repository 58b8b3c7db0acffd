"""Dask benchmark: `kg build --dask local:N` against the multiprocessing build, same input,
same number of processes.

    python scripts/bench_dask.py [--input ../shared/data/paperlists/colm2025.json.gz]
                                 [--workers 2] [--rounds 1] [--partition 32]

Each round runs, from this one process (odd rounds in this order, even rounds the other way
round), the whole build (read, extract,
canonicalise, link, write Turtle into a temporary folder):
  1. with N worker processes (`kg build --processes N`: a fork pool that inherits the loaded
     pipeline);
  2. on a Dask LocalCluster of N single-thread worker processes (`kg build --dask local:N`),
     its start included (its workers are forked after the pipeline is loaded, as the pool's).
Each build loads the pipeline itself (the process's cached one is dropped first) and runs
without the parse cache (both parse every paper).
It prints both wall times, the extraction stage's times, their ratios (target: Dask within
1.2x of the multiprocessing build) and whether the two graphs are the same bytes. The machine
is shared and noisy, so the ratios are taken within a round and the medians reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from perf_doc import recording

from kg.build import run_build
from kg.extract import cached_extractor
from kg.extract.cluster import DEFAULT_PARTITION, DaskTarget
from kg.ingest import read_papers

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT.parent / "shared" / "data" / "paperlists" / "colm2025.json.gz"
TARGET = 1.2


def _build(source: Path, out: Path, *, processes: int,
           dask: DaskTarget | None) -> tuple[float, float]:
    """(whole build, extraction stage) seconds of one build into `out`, loading the pipeline
    included (each build loads its own)."""
    cached_extractor.cache_clear()
    stages: dict[str, float] = {}
    start = time.perf_counter()
    # Without the parse cache: with it (run_build's default), the first build of a round
    # would fill it and the second read every paper from it.
    run_build([source], out, n_process=None if dask else processes, dask=dask, cache=False,
              on_stage=lambda name, seconds, _: stages.__setitem__(name, seconds))
    return time.perf_counter() - start, stages["extraction"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--workers", type=int, default=2,
                        help="worker processes of both builds (default 2)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--partition", type=int, default=DEFAULT_PARTITION,
                        help="papers per Dask task")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    papers = sum(1 for p in read_papers([args.input]) if p.abstract)
    dask = DaskTarget(local_workers=args.workers, partition_size=args.partition)
    print(f"input: {args.input.name}: {papers} papers with abstracts; {args.workers} worker "
          f"processes; Dask partitions of {args.partition} papers")
    print("| round | processes build (s) | Dask build (s) | Dask / processes "
          "| processes extraction (s) | Dask extraction (s) | same bytes |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    same_all = True
    for n in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            local_out, dask_out = Path(tmp) / "local.ttl", Path(tmp) / "dask.ttl"
            # The two builds take turns at going first: the machine's load drifts.
            if n % 2:
                local = _build(args.input, local_out, processes=args.workers, dask=None)
            on_dask = _build(args.input, dask_out, processes=args.workers, dask=dask)
            if not n % 2:
                local = _build(args.input, local_out, processes=args.workers, dask=None)
            same = local_out.read_bytes() == dask_out.read_bytes()
        same_all &= same
        rows.append((local[0], on_dask[0], local[1], on_dask[1]))
        print(f"| {n} | {local[0]:.1f} | {on_dask[0]:.1f} | {on_dask[0] / local[0]:.2f} "
              f"| {local[1]:.1f} | {on_dask[1]:.1f} | {'yes' if same else 'NO'} |")
        sys.stdout.flush()
    ratio = statistics.median(r[1] / r[0] for r in rows)
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    print(f"| median | {med[0]:.1f} | {med[1]:.1f} | {ratio:.2f} | {med[2]:.1f} | {med[3]:.1f} "
          f"| {'yes' if same_all else 'NO'} |")
    print(f"Dask build / processes build: {ratio:.2f} (target <= {TARGET}: "
          f"{'met' if ratio <= TARGET else 'not met'}); graphs byte-identical: "
          f"{'yes' if same_all else 'NO'}")
    return 0 if same_all else 1


if __name__ == "__main__":
    with recording("dask", enabled="--no-doc" not in sys.argv):
        code = main()
    sys.exit(code)
