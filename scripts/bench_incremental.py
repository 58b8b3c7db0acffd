"""Incremental build benchmark (issue 14: adding 1 % new papers costs <= 10 % of a full build).

    python scripts/bench_incremental.py --input FILE... --new FILE:N [--store] [--processes 2]
        [--work DIR] [--code DIR] [--verify]

In one run, each build in a fresh process (this script run with `--one`):

  1. cold: `run_build(FILES)` into an empty parse cache (and, with `--store`, a new store);
  2. incremental: on copies of that cache and store, `run_build(FILES + NEW)`, NEW being the
     first N papers with an abstract of the `--new` file (written as JSON Lines); the cache's
     region index names the cold build's graph, from which the writer copies the unchanged
     paper regions (`kg.rdf.reuse`), as a rebuild in place would;
  3. with `--verify`: a build of FILES + NEW without cache into a new store, whose graph
     must be the incremental one, byte for byte.

It prints each build's stages (wall and CPU seconds, `run_build`'s `on_stage`), its wall and
CPU time (the build process and its workers) and the incremental/cold ratios of both. The
machine is shared and noisy: take ratios within one run. `--code DIR` runs the `kg` package
of another checkout (e.g. `git worktree add /tmp/before main`) instead of this one, with the
editable install's import hook removed, so that a paired before/after measures the code it
names.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(spec: dict) -> dict:
    """One build in this process (from `spec["code"]` when given): stages, times, SHA-256."""
    if spec.get("code"):
        # The editable install's finder would import this checkout's kg whatever sys.path says.
        sys.meta_path[:] = [f for f in sys.meta_path if "_EditableFinder" not in repr(f)]
        sys.path.insert(0, spec["code"])
    import kg.build
    from kg.build import run_build

    stages: list[tuple[str, float, float]] = []
    last = [time.process_time()]

    def stage(name: str, seconds: float, _what: str) -> None:
        now = time.process_time()
        stages.append((name, seconds, now - last[0]))
        last[0] = now

    wall = time.perf_counter()
    run_build(spec["inputs"], spec["output"], cache=spec["cache"] or False,
              store=spec["store"], n_process=spec["processes"], on_stage=stage)
    wall = time.perf_counter() - wall
    own, kids = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                       resource.RUSAGE_CHILDREN))
    return {"code": str(Path(kg.build.__file__).parents[1]), "stages": stages, "wall": wall,
            "cpu": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
            "load": os.getloadavg()[0],
            "sha256": hashlib.sha256(Path(spec["output"]).read_bytes()).hexdigest()}


def run(spec: dict) -> dict:
    """`one(spec)` in a fresh process."""
    done = subprocess.run([sys.executable, __file__, "--one", json.dumps(spec)], check=True,
                          capture_output=True, text=True, env={**os.environ,
                                                                "OMP_NUM_THREADS": "1"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def new_papers(source: str, count: int, out: Path) -> int:
    """The first `count` papers with an abstract of `source`, as JSON Lines in `out`."""
    from kg.ingest import read_papers

    rows = []
    for paper in read_papers([source]):
        if paper.abstract:
            rows.append({"id": paper.id, "title": paper.title, "abstract": paper.abstract,
                         "authors": list(paper.authors), "year": paper.year,
                         "venue": paper.venue})
        if len(rows) == count:
            break
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return len(rows)


def report(name: str, result: dict) -> None:
    print(f"{name}: wall {result['wall']:.1f} s, CPU {result['cpu']:.1f} s (workers included), "
          f"load {result['load']:.1f} at the end, SHA-256 {result['sha256'][:12]}…")
    for stage, wall, cpu in result["stages"]:
        print(f"  {stage:<30} wall {wall:7.1f} s  CPU {cpu:6.1f} s (this process)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--input", nargs="+", help="the corpus (the 99 %)")
    parser.add_argument("--new", help="FILE:N, the first N papers with an abstract of FILE")
    parser.add_argument("--store", action="store_true", help="also load a store")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--work", type=Path, help="folder for caches, stores and graphs "
                        "(default: a temporary one, removed)")
    parser.add_argument("--code", help="the checkout whose kg package runs (default: this one)")
    parser.add_argument("--verify", action="store_true",
                        help="also build everything without cache and compare the bytes")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(json.loads(args.one))))
        return 0
    if not args.input or not args.new:
        parser.error("--input and --new are required")
    source, _, count = args.new.rpartition(":")
    with tempfile.TemporaryDirectory(prefix="bench-incremental-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        new = work / "new.jsonl"
        added = new_papers(source, int(count), new)
        code = str(Path(args.code).resolve()) if args.code else ""

        def spec(name: str, inputs: list[str], cache: Path | None) -> dict:
            store = work / f"{name}.store" if args.store else None
            return {"inputs": inputs, "output": str(work / f"{name}.ttl"),
                    "cache": str(cache) if cache else None,
                    "store": str(store) if store else None,
                    "processes": args.processes, "code": code}

        for leftover in ("cold.cache", "cold.store", "incremental.cache", "incremental.store",
                         "full.store"):
            shutil.rmtree(work / leftover, ignore_errors=True)
        print(f"{len(args.input)} input files + {added} new papers from {source}; "
              f"{args.processes} processes{', --store' if args.store else ''}")
        cold = run(spec("cold", args.input, work / "cold.cache"))
        report("cold", cold)
        shutil.copytree(work / "cold.cache", work / "incremental.cache")
        if args.store:
            shutil.copytree(work / "cold.store", work / "incremental.store")
        grown = [*args.input, str(new)]
        incremental = run(spec("incremental", grown, work / "incremental.cache"))
        report("incremental", incremental)
        print(f"code: {cold['code']}")
        print(f"incremental / cold: wall {incremental['wall'] / cold['wall']:.1%}, "
              f"CPU {incremental['cpu'] / cold['cpu']:.1%} (target <= 10 %)")
        if args.verify:
            full = run(spec("full", grown, None))
            same = full["sha256"] == incremental["sha256"]
            print(f"full rebuild without cache: wall {full['wall']:.1f} s; "
                  f"byte-identical to the incremental graph: {'yes' if same else 'NO'}")
            if not same:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
