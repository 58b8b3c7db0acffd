"""Scale benchmark (issue 14): peak memory, the parse cache, incremental builds, processes.

    python scripts/bench_scale.py [--input ../shared/data/paperlists/colm2025.json.gz ...]
        [--memory-inputs FILE...] [--processes 2] [--quick] [--no-doc]
        [--new FILE] [--only warm,rule-change,rule-edit,incremental]

Every build runs in a fresh process (this script run with `--one`), so each peak RSS is that
build's own (the largest of its process and its worker processes) and no build inherits
another's loaded models. Into a temporary folder, on `--input`:

  1. cold: an empty parse cache, 2 processes (the "before" of every ratio);
  2. warm: the same build again (nothing changed);
  3. rule change: the learned decisions' acceptance threshold moved (another extraction
     version), so every decision runs again on the cached parses (and on the cached
     features: the `prepared` entries); its graph is compared with a build of the same
     setting without cache (`--quick`: not built);
  3b. rule edit: what a change of the candidates' or the features' code costs (their
     version changes, so `prepared` entries and records miss): the cold build's cache without
     them, so candidates and features are made again from the cached parses; its graph must
     be the cold one;
  4. incremental: a cache filled by a build of 99 % of the papers, then a build of all of
     them (1 % new), against a cold build of all of them. With `--new FILE` (for large
     inputs, where a second cold build costs half an hour): the cold build is of `--input`
     alone, and the incremental build adds the first 1 % (of the inputs' papers) of FILE's
     papers on a copy of the cold build's cache, against that cold build;
  5. 1 process, cold, against 2 processes, cold;
  6. a bare `nlp.pipe` of the same spaCy components (English pipeline without `ner`, then the
     recogniser over the same tokens) over the same texts with the same processes.
Peak RSS of warm builds (`--memory-inputs`, one build per input set, cache filled first) gives
memory per paper without the spaCy workers; the line through them is extrapolated to 35k
and 350k papers. The machine is shared and noisy: ratios are taken within one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
DEFAULT_INPUT = ROOT.parent / "shared" / "data" / "paperlists" / "colm2025.json.gz"


def one(spec: dict) -> dict:
    """One build (in this process) as `spec` says; its seconds, peak RSS and counts."""
    from kg.build import run_build
    from kg.extract import ExtractorConfig
    from kg.extract.decisions import DEFAULT_THRESHOLDS

    config = ExtractorConfig()
    if spec.get("accept") is not None:
        config = ExtractorConfig(thresholds=dataclasses.replace(DEFAULT_THRESHOLDS,
                                                                accept=spec["accept"]))
    start = time.perf_counter()
    summary = run_build(spec["inputs"], spec["output"], n_process=spec["processes"],
                        config=config, cache=spec["cache"] or False,
                        shards=spec.get("shards", 0))
    seconds = time.perf_counter() - start
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    e = summary.extraction
    return {"seconds": seconds, "rss_mb": max(own, kids) / 1024, "parsed": e.parsed,
            "parse_hits": e.parse_hits, "reused": e.reused, "papers": e.papers,
            "prepared_hits": getattr(e, "prepared_hits", 0),
            "triples": summary.triples}


def bare(spec: dict) -> dict:
    """The bare spaCy run: the build's English components, then the recogniser over the
    same tokens (as extraction runs it), `processes` processes."""
    from spacy.tokens import Doc

    from kg.extract.nlp import load_nlp
    from kg.extract.recogniser import load_model
    from kg.extract.textfix import repair
    from kg.ingest import read_papers

    texts = [repair(t).text for p in read_papers(spec["inputs"]) if p.abstract
             for t in (p.title, p.abstract) if t and t.strip()]
    nlp, model = load_nlp(), load_model()
    start = time.perf_counter()
    docs = list(nlp.pipe(texts, batch_size=64, n_process=spec["processes"]))
    inputs = [Doc(model.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d])
              for d in docs]
    for _ in model.pipe(inputs, batch_size=64, n_process=spec["processes"]):
        pass
    return {"seconds": time.perf_counter() - start, "texts": len(texts)}


def run(spec: dict) -> dict:
    """`spec` run by a fresh process of this script."""
    out = subprocess.run([sys.executable, __file__, "--one", json.dumps(spec)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"build failed: {spec}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _records(paths: list[Path]) -> list[dict]:
    from kg.ingest import read_papers

    return [{"id": p.id, "title": p.title, "abstract": p.abstract, "authors": list(p.authors),
             "year": p.year, "venue": p.venue} for p in read_papers(paths)]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def split(paths: list[Path], where: Path, share: float) -> tuple[Path, Path]:
    """The papers of `paths` as two JSON Lines files: all but `share`, and `share` of them."""
    records = _records(paths)
    cut = len(records) - max(1, round(len(records) * share))
    return _write(where / "old.jsonl", records[:cut]), _write(where / "new.jsonl", records[cut:])


def new_papers(paths: list[Path], source: Path, where: Path, share: float) -> Path:
    """The first `share` (of the papers of `paths`) of the papers of `source`, as a JSON Lines
    file: papers the inputs do not hold, to add to them (`--new`)."""
    from kg.ingest import read_papers

    count = max(1, round(sum(1 for _ in read_papers(paths)) * share))
    return _write(where / "new.jsonl", _records([source])[:count])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, nargs="+", default=[DEFAULT_INPUT])
    parser.add_argument("--memory-inputs", nargs="*", default=[],
                        help="input sets for the memory line, each a comma-separated list")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--quick", action="store_true",
                        help="cold, warm, rule change and incremental builds only")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--new", type=Path, default=None, metavar="FILE",
                        help="the 1 %% new papers from FILE (not among the inputs), added on a "
                        "copy of the cold build's cache: no second cold build (large inputs)")
    parser.add_argument("--only", default=None, metavar="NAMES",
                        help="with --quick: only these of warm, rule-change, rule-edit, "
                        "incremental after the cold build (comma-separated)")
    args = parser.parse_args()
    p = args.processes
    # Without --quick every rebuild runs (the full table needs them all).
    wanted = set(args.only.split(",")) if args.only and args.quick else {
        "warm", "rule-change", "rule-edit", "incremental"}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.new is not None:
            inputs = [str(path) for path in args.input]
            added = [*inputs, str(new_papers(args.input, args.new, tmp, 0.01))]
        else:
            old, new = split(args.input, tmp, 0.01)
            inputs = added = [str(old), str(new)]
        both = inputs

        def build(name: str, inputs: list[str], cache: str | None, processes: int = p,
                  **kw: object) -> dict:
            result = run({"inputs": inputs, "output": str(tmp / f"{name}.ttl"), "cache": cache,
                          "processes": processes, **kw})
            print(f"- {name}: {result['seconds']:.1f} s, peak RSS {result['rss_mb']:.0f} MB, "
                  f"{result['parsed']} texts parsed, {result['parse_hits']} parses and "
                  f"{result['reused']} records and {result['prepared_hits']} papers' features "
                  "from the cache")
            sys.stdout.flush()
            return result

        names = " ".join(path.name for path in args.input)
        print(f"input: {names}, {p} processes; every build in a fresh process")
        cold = build("cold", both, str(tmp / "c1"))
        if args.new is not None and "incremental" in wanted:
            shutil.copytree(tmp / "c1", tmp / "c2")  # the cold build's cache, as it left it
        runs = {"cold": cold}
        if "warm" in wanted:
            runs["warm"] = build("warm", both, str(tmp / "c1"))
        if "rule-change" in wanted:
            runs["rule-change"] = build("rule-change", both, str(tmp / "c1"), accept=0.45)
        if "rule-edit" in wanted:
            runs["rule-edit"] = build("rule-edit", both,
                                      str(without_decisions(tmp / "c1", tmp / "c4")))
        if "incremental" in wanted:
            if args.new is None:
                build("99-percent", [str(old)], str(tmp / "c2"))
            runs["incremental"] = build("incremental", added, str(tmp / "c2"))
        if args.quick:
            print()
            labels = {"warm": "warm", "rule-change": "rule change", "rule-edit": "rule edit",
                      "incremental": "1 % new"}
            ratios = [f"{labels[name]} / cold {result['seconds'] / cold['seconds']:.1%}"
                      for name, result in runs.items() if name != "cold"]
            # With --new the incremental build has more papers than the cold one.
            alike = tuple(n for n in ("warm", "rule-edit", "incremental")
                          if n in runs and not (n == "incremental" and args.new is not None))
            print("; ".join(ratios) + (f"; same bytes {', '.join(alike)} = cold: "
                                       f"{_same(tmp, alike)}" if alike else ""))
            return 0
        warm, rule, edit = runs["warm"], runs["rule-change"], runs["rule-edit"]
        incremental = runs["incremental"]
        build("rule-change-no-cache", both, None, accept=0.45)
        one_process = build("cold-1-process", both, str(tmp / "c3"), processes=1)
        nocache = build("no-cache", both, None)
        print(f"- cold build with the cache / without: "
              f"{cold['seconds'] / nocache['seconds']:.2f}×")
        bare_run = run_bare(both, p)
        print(f"- bare spaCy ({bare_run['texts']} texts, same components and processes): "
              f"{bare_run['seconds']:.1f} s")
        compared = ("warm", "rule-edit", *(("incremental",) if args.new is None else ()),
                    "cold-1-process", "no-cache")
        same = _same(tmp, compared)
        rule_same = ((tmp / "rule-change.ttl").read_bytes()
                     == (tmp / "rule-change-no-cache.ttl").read_bytes())
        print()
        print("| measure | figure | target |")
        print("|---|---|---|")
        print(f"| warm rebuild / cold | {warm['seconds'] / cold['seconds']:.1%} | – |")
        print(f"| rule change, warm parse cache / cold | {rule['seconds'] / cold['seconds']:.1%}"
              " | ≤ 15 % |")
        print(f"| rule edit (candidate or feature code), warm parse cache / cold | "
              f"{edit['seconds'] / cold['seconds']:.1%} | ≤ 15 % |")
        print(f"| 1 % new papers / full cold build | "
              f"{incremental['seconds'] / cold['seconds']:.1%} | ≤ 10 % |")
        ratio = cold["seconds"] / bare_run["seconds"]
        print(f"| cold build / bare spaCy, same components and processes | {ratio:.2f}× "
              "| ≤ 1.3× |")
        print(f"| 2 processes / 1 process speed-up | "
              f"{one_process['seconds'] / cold['seconds']:.2f}× | ≥ 1.7× |")
        print(f"| peak RSS, cold build | {cold['rss_mb']:.0f} MB | – |")
        print(f"| same bytes: {', '.join(compared)} = cold | {same} | yes |".replace(
            "cold-1-process", "1 process").replace("no-cache", "no cache").replace(
            "rule-edit", "rule edit"))
        print(f"| same bytes: rule change = its build without cache | {rule_same} | yes |")
        memory_line(args.memory_inputs, tmp, p)
    return 0


def without_decisions(cache: Path, copy: Path) -> Path:
    """A copy of the parse cache folder `cache` at `copy` without its `prepared` entries and
    extraction records: what a build finds after the candidates' or features' code changed
    (their versions are digests of that code, `kg.extract.cache`)."""
    from kg.extract.cache import CACHE_FILE, PREPARED, RECORD

    shutil.copytree(cache, copy)
    with closing(sqlite3.connect(copy / CACHE_FILE)) as db, db:
        db.execute("DELETE FROM entries WHERE kind IN (?, ?)", (PREPARED, RECORD))
    return copy


def _same(tmp: Path, names: tuple[str, ...]) -> bool:
    cold = (tmp / "cold.ttl").read_bytes()
    return all((tmp / f"{name}.ttl").read_bytes() == cold for name in names)


def run_bare(inputs: list[str], processes: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--bare",
                          json.dumps({"inputs": inputs, "processes": processes})],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory_line(sets: list[str], tmp: Path, processes: int) -> None:
    """Peak RSS of warm builds of growing inputs, and the line through them."""
    if not sets:
        return
    points = []
    for n, inputs in enumerate(sets):
        files = inputs.split(",")
        spec = {"inputs": files, "cache": str(tmp / "mem"), "processes": processes}
        run({**spec, "output": str(tmp / f"mem{n}-fill.ttl")})
        result = run({**spec, "output": str(tmp / f"mem{n}.ttl")})
        points.append((result["papers"], result["rss_mb"], result["triples"]))
        print(f"- warm build of {result['papers']} papers ({result['triples']} triples): "
              f"peak RSS {result['rss_mb']:.0f} MB")
    if len(points) >= 2:
        (n0, r0, _), (n1, r1, _) = points[0], points[-1]
        slope = (r1 - r0) / (n1 - n0)
        for size in (35_107, 350_000):
            print(f"- extrapolated peak RSS at {size:,} papers: "
                  f"{r0 + slope * (size - n0):,.0f} MB ({slope * 1024:.0f} KB a paper)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(one(json.loads(sys.argv[2]))))
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "--bare":
        print(json.dumps(bare(json.loads(sys.argv[2]))))
        sys.exit(0)
    from perf_doc import recording

    with recording("scale", enabled="--no-doc" not in sys.argv):
        code = main()
    sys.exit(code)
