"""Store loads of a grown graph (issue 14): a whole load against a load by difference.

    python scripts/bench_store_delta.py OLD.ttl NEW.ttl [--shares 0.01 0.05 ...] [--work DIR]

Into `--work` (a temporary folder by default): OLD is loaded whole into a store (which keeps
its block record, `kg.query.delta`); then NEW is loaded (a) whole into a store of its own and
(b) by difference into a copy of OLD's store, and the two stores are compared (every quad,
the rank and link indexes). With `--shares`, NEW is also made from OLD with that share of its
blocks changed (one triple added to each, evenly spread), and both loads of each are timed, so
that the share at which a load by difference stops paying (`kg.query.delta.DELTA_LIMIT`) can be
read off. Loads alternate whole / by difference, each timed alone; the machine is shared, so
the figures are paired within one run. Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

import kg.query.delta as delta_module
from kg.query.blocks import blocks_of
from kg.query.links import LINK_FILE
from kg.query.ranks import RANK_FILE
from kg.query.store import load_store


def changed(old: Path, target: Path, share: float) -> Path:
    """OLD with `share` of its statement blocks given one more triple each."""
    blocks = list(blocks_of(old))
    statements = [i for i, b in enumerate(blocks) if not b.startswith((b"@", b"#", b"PREFIX"))]
    step = max(1, round(1 / share)) if share > 0 else 0
    picked = set(statements[::step]) if step else set()
    with target.open("wb") as out:
        for i, block in enumerate(blocks):
            if i in picked:
                block = block[:-1].rstrip() + b' ;\n\t<https://example.org/bench#mark> "changed" .'
            out.write(block + b"\n")
    return target


def same(a: Path, b: Path) -> bool:
    """Whether two stores hold the same quads and the same rank and link index rows."""
    def contents(path: Path) -> tuple[set[str], list[object]]:
        store = ox.Store.read_only(str(path))
        quads = {str(q) for q in store}
        del store
        rows: list[object] = []
        for name in (RANK_FILE, LINK_FILE):
            db = sqlite3.connect(f"file:{path / name}?mode=ro", uri=True)
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'label_text%' ORDER BY name"):
                rows.append(sorted((r for r in db.execute(f"SELECT * FROM {table}")
                                    if not (table == "meta" and r[0] == "fingerprint")), key=repr))
            db.close()
        return quads, rows

    return contents(a) == contents(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--shares", type=float, nargs="*", default=[])
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    delta_module.DELTA_LIMIT = 1.0  # time every share by difference, however large
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-delta-"))
    work.mkdir(parents=True, exist_ok=True)
    base = work / "old.db"
    report = load_store(base, args.old)
    print(f"old: {args.old.name}, {report.triples:,} triples, loaded whole in "
          f"{report.seconds:.1f} s; load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    cases = [(args.new.name, args.new)]
    cases += [(f"{share:.0%} of the blocks changed", changed(args.old, work / f"s{share}.ttl",
                                                             share)) for share in args.shares]
    print("| new graph | triples | whole load, s | by difference, s | ratio | what changed "
          "| same store | load average |")
    print("|---|---|---|---|---|---|---|---|")
    for name, graph in cases:
        whole_dir, diff_dir = work / "whole.db", work / "diff.db"
        for folder in (whole_dir, diff_dir):
            shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(base, diff_dir)
        whole = load_store(whole_dir, graph)
        start = time.perf_counter()
        diff = load_store(diff_dir, graph)
        seconds = time.perf_counter() - start
        print(f"| {name} | {whole.triples:,} | {whole.seconds:.1f} | {seconds:.1f} | "
              f"{seconds / whole.seconds:.2f} | {diff.note if diff.by_difference else 'whole'} "
              f"| {same(whole_dir, diff_dir)} | {os.getloadavg()[0]:.1f} |")
        sys.stdout.flush()
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
