"""Memory benchmark (issue 14): peak RSS of `kg build`, of its store load, and of their sum.

    python scripts/bench_memory.py --set 1k=A.json.gz,B.json.gz --set 5k=A,B,C,D,E,F \\
        --cache /tmp/mem4/cache5k [--store] [--load] [--processes 2] [--work DIR] \\
        [--kg .venv/bin/kg] [--interval 0.2]
    python scripts/bench_memory.py --synthetic 4,8,16 --cache /tmp/mem7/cache \\
        [--sources ../shared/data/paperlists/colm2025.json.gz,…/aistats2025.json.gz]

Each `--set NAME=FILES` is one `kg build` (a fresh process, `--progress` on), run with the
parse cache `--cache` (fill it first with a build of the largest set: the figures are then
phase 2's, as phase 1 only reads records). While it runs, a sampler reads every `--interval`
seconds the RSS of the build process and of each of its child processes (psutil) and keeps:
the build process's peak, the peak of the *sum* over the whole process tree (what the machine
must hold at once; `/usr/bin/time -v` reports only the largest single process), the peak of
the tree's summed PSS (proportional set size: a page shared by n processes counts 1/n in
each, so the pipelines the workers inherit from the build process by fork count once; the
sum of RSS counts them in every process), and the build process's RSS at the end of each
stage (the stage lines on stderr). `--store` builds with
`--store` (the store load is then one of the stages); `--load` also runs `kg load` of the
graph just written into a new store as its own process, sampled the same way. Then the
graph's SHA-256 (to compare with another version of the code), and a line through the sets'
peaks by paper count, extrapolated to 35k and 350k papers. Prints figures, asserts nothing.

`--synthetic 4,8,16` makes the sets of issue 14's synthetic corpus instead: the `--sources`
(default colm2025 + aistats2025 of `paperlists/`, 1,001 papers) repeated 4, 8 and 16 times
with changed ids (`<id>-r<n>`), one file per source and repeat, in `--work`. The parse cache
is keyed by text, so one cold build of the sources alone (`kg build SOURCES -o x.ttl --cache
DIR`) makes every record of every set a cache hit: the figures are then phase 2's alone.
The repeats add papers, links and mentions but no concept, so the line through the two
largest sets (printed too) is the per-paper cost without the key tables' growth.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
STAGE = re.compile(r"^(?P<name>[a-z][a-z ,]+): (?P<detail>.*)\((?P<seconds>[0-9.]+) s\)$")
MB = 1024 * 1024


@dataclass
class Sampled:
    """What the sampler saw of one command's process tree."""

    seconds: float = 0.0
    cpu: float = 0.0  # user + system seconds of the process and its children
    maxrss: int = 0  # largest peak of any process waited for so far (`time -v`'s figure)
    peak_main: int = 0
    peak_tree: int = 0
    peak_tree_pss: int = 0  # the peak of the tree's summed PSS (0 where it cannot be read)
    peak_processes: int = 0
    stages: list[tuple[str, float, int, int, str]] = field(default_factory=list)
    # (stage, seconds, main RSS at its end, main peak during it, detail)
    output: str = ""
    returncode: int = 0


def sample(command: list[str], interval: float) -> Sampled:
    """Run `command`, sampling the RSS of its process tree until it exits."""
    result = Sampled()
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    main = psutil.Process(proc.pid)
    stage_peak = 0
    lock = threading.Lock()
    done = threading.Event()

    def sampler() -> None:
        nonlocal stage_peak
        while not done.is_set():
            try:
                own = main.memory_info().rss
                total, count, pss = own, 1, _pss(main)
                for child in main.children(recursive=True):
                    try:
                        total += child.memory_info().rss
                        pss += _pss(child)
                        count += 1
                    except psutil.Error:
                        pass
            except psutil.Error:
                break
            with lock:
                result.peak_main = max(result.peak_main, own)
                result.peak_tree = max(result.peak_tree, total)
                result.peak_tree_pss = max(result.peak_tree_pss, pss)
                result.peak_processes = max(result.peak_processes, count)
                stage_peak = max(stage_peak, own)
            done.wait(interval)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    lines: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        found = STAGE.match(line.strip())
        if found:
            try:
                now = main.memory_info().rss
            except psutil.Error:
                now = 0
            with lock:
                peak = max(stage_peak, now)
                result.stages.append((found["name"], float(found["seconds"]), now, peak,
                                      found["detail"].strip()))
                stage_peak = 0
    result.returncode = proc.wait()
    done.set()
    thread.join()
    result.seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result.maxrss = after.ru_maxrss * 1024
    result.output = "".join(lines)
    return result


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def papers_of(stages: list[tuple[str, float, int, int, str]]) -> int:
    for name, _, _, _, detail in stages:
        if name == "reading":
            return int(detail.split()[0])
    return 0


PAPERLISTS = ROOT.parent / "shared" / "data" / "paperlists"
SOURCES = f"{PAPERLISTS / 'colm2025.json.gz'},{PAPERLISTS / 'aistats2025.json.gz'}"


def synthetic_sets(sources: list[Path], repeats: list[int], folder: Path) -> list[str]:
    """`--set` specs of the sources repeated `repeats` times each, ids changed after the first
    repeat; one file per source and repeat (written once, reused by later sets)."""
    folder.mkdir(parents=True, exist_ok=True)
    records = {}
    for source in sources:
        with gzip.open(source, "rt", encoding="utf-8") as data:
            records[source] = json.load(data)
    specs = []
    for count in repeats:
        files = []
        for repeat in range(count):
            for source in sources:
                name = source.name.split(".")[0]
                path = folder / f"{name}-r{repeat:03d}.json.gz"
                if not path.exists():
                    rows = [row if repeat == 0 else {**row, "id": f"{row['id']}-r{repeat}"}
                            for row in records[source]]
                    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
                        json.dump(rows, out)
                files.append(str(path))
        specs.append(f"x{count}={','.join(files)}")
    return specs


def _pss(process: psutil.Process) -> int:
    """The process's proportional set size (Linux's smaps), 0 where the platform has none."""
    try:
        return int(getattr(process.memory_full_info(), "pss", 0))
    except psutil.AccessDenied:
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=FILES",
                        help="an input set: a name, '=', comma-separated input files")
    parser.add_argument("--synthetic", default="", metavar="N,N,…",
                        help="sets of the --sources repeated N times with changed ids")
    parser.add_argument("--sources", default=SOURCES,
                        help="comma-separated JSON paper lists the synthetic sets repeat")
    parser.add_argument("--cache", required=True, help="the parse cache folder (filled first)")
    parser.add_argument("--store", action="store_true", help="build with --store")
    parser.add_argument("--load", action="store_true", help="also time `kg load` on its own")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--kg", default=str(ROOT / ".venv" / "bin" / "kg"))
    parser.add_argument("--work", type=Path, default=None,
                        help="keep graphs and stores here (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_memory-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.synthetic:
        args.set += synthetic_sets([Path(p) for p in args.sources.split(",")],
                                   [int(n) for n in args.synthetic.split(",")],
                                   work / "synthetic")
    if not args.set:
        parser.error("give --set or --synthetic")
    print(f"kg: {args.kg}; cache {args.cache}; {args.processes} processes; sampled every "
          f"{args.interval} s; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    points: list[tuple[int, int, int, int]] = []
    for spec in args.set:
        name, _, files = spec.partition("=")
        graph, store = work / f"{name}.ttl", work / f"{name}.store"
        shutil.rmtree(store, ignore_errors=True)
        command = [args.kg, "build", *files.split(","), "-o", str(graph), "--cache", args.cache,
                   "--processes", str(args.processes), "--progress"]
        if args.store:
            command += ["--store", str(store)]
        built = sample(command, args.interval)
        if built.returncode != 0:
            print(built.output[-3000:])
            raise SystemExit(f"{name}: kg build failed ({built.returncode})")
        papers = papers_of(built.stages)
        print(f"\n## {name}: {papers} papers, {built.seconds:.1f} s wall, {built.cpu:.1f} s CPU, "
              f"build process peak "
              f"{built.peak_main / MB:,.0f} MB, process tree peak (sum) "
              f"{built.peak_tree / MB:,.0f} MB ({built.peak_processes} processes at most), "
              f"of PSS {built.peak_tree_pss / MB:,.0f} MB; "
              f"largest process's maxrss {built.maxrss // 1024:,} kB")
        print("| stage | seconds | RSS at its end | peak during it | what |")
        print("|---|---|---|---|---|")
        for stage, seconds, now, peak, detail in built.stages:
            print(f"| {stage} | {seconds:.1f} | {now / MB:,.0f} MB | {peak / MB:,.0f} MB | "
                  f"{detail[:70]} |")
        print(f"graph sha256 {sha256(graph)} ({graph.stat().st_size / 1e6:.1f} MB)")
        load_peak = 0
        if args.load:
            separate = work / f"{name}.loaded"
            shutil.rmtree(separate, ignore_errors=True)
            loaded = sample([args.kg, "load", str(graph), "--store", str(separate)],
                            args.interval)
            if loaded.returncode != 0:
                print(loaded.output[-3000:])
                raise SystemExit(f"{name}: kg load failed ({loaded.returncode})")
            load_peak = loaded.peak_tree
            print(f"kg load on its own: {loaded.seconds:.1f} s ({loaded.cpu:.1f} s CPU), "
                  f"peak {load_peak / MB:,.0f} MB (tree sum)")
            shutil.rmtree(separate, ignore_errors=True)
        phase2 = max((peak for stage, _, _, peak, _ in built.stages if stage != "store load"),
                     default=0)
        print(f"build process peak before the store load: {phase2 / MB:,.0f} MB")
        points.append((papers, phase2, built.peak_tree, load_peak))
        sys.stdout.flush()
    if len(points) >= 2:
        (p0, w0, b0, l0), (p1, w1, b1, l1) = min(points), max(points)
        if p1 > p0:
            print("\n## per paper (line through the smallest and largest set; the store's "
                  "loader works in batches, so its line overstates larger graphs)")
            for label, y0, y1 in (("build before the store load", w0, w1),
                                  ("whole build (tree sum)", b0, b1), ("kg load", l0, l1)):
                if not y1:
                    continue
                slope = (y1 - y0) / (p1 - p0)
                at35k, at350k = ((y0 + slope * (n - p0)) / MB for n in (35_107, 350_000))
                print(f"- {label}: {slope / 1024:,.1f} KB a paper; "
                      f"{at35k:,.0f} MB at 35,107 papers, {at350k:,.0f} MB at 350k")
        ordered = sorted(points)
        (p0, w0, _, _), (p1, w1, _, _) = ordered[-2], ordered[-1]
        if len(points) > 2 and p1 > p0:
            slope = (w1 - w0) / (p1 - p0)
            at350k = (w1 + slope * (350_000 - p1)) / MB
            print(f"- build before the store load, line through the two largest sets "
                  f"({p0:,} and {p1:,} papers): {slope / 1024:,.1f} KB a paper; "
                  f"{at350k:,.0f} MB at 350k (an extrapolation; the target is 2,048 MB)")
    print(f"\nload average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"files in {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
