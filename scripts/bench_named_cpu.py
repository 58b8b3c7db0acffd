"""CPU cost of the first answer of each request of the server bench's pool, in one process.

    python scripts/bench_named_cpu.py --store STORE [--labels 300] [--every 1] [--plain]

For each of the `--labels` concepts in the most papers (every `--every`-th of them), runs the
named queries of `scripts/bench_server.py`'s pool (papers-using, co-occurring, search) the way a
query worker does (`run_named` with the row limit of a first page, then the JSON the client
gets) and measures the CPU time of this process (`time.process_time`: load on a shared machine
barely changes it, unlike wall time). `--plain` runs the named queries as written, without the
store's link index (`kg.query.answers`): the before/after of that index in one command.

Prints, per query: requests, CPU total, p50, p90, p99 and max (ms), and the labels that cost
the most.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from bench_server import LABELS

PAGE = 100  # rows of a first page (kg serve --page-rows)
POOL = (("papers-using", "concept"), ("co-occurring", "concept"), ("search", "text"))


def top_labels(source: Any, limit: int) -> list[str]:
    """The labels `bench_server.LABELS` lists (`ORDER BY DESC(?n) ?label`), from the first
    concepts of the rank index (sorted by the same count first) rather than a sort of every
    concept (a minute on the 35k-paper store)."""
    if source.ranks is None:
        return [row[0].value for row in source.query(LABELS.format(limit=limit)).rows]
    wanted = limit * 2
    while True:
        iris = source.ranks.ranked(wanted)
        values = " ".join(f"<{iri}>" for iri in iris)
        rows = source.query(f"""PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?c ?n ?label WHERE {{ VALUES ?c {{ {values} }} ?c kg:paperCount ?n ;
skos:prefLabel ?label }}""").rows
        found = sorted(((-int(n.value), label.value, c.value) for c, n, label in rows))
        last = min(-count for count, _, c in found if c == iris[-1]) if iris else 0
        if len(iris) < wanted or (len(found) >= limit and -found[limit - 1][0] > last):
            return [label for _, label, _ in found[:limit]]
        wanted *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--labels", type=int, default=300)
    parser.add_argument("--every", type=int, default=1, help="time every n-th label only")
    parser.add_argument("--plain", action="store_true", help="without the link index")
    args = parser.parse_args()

    from kg.query import ResultFormat, open_source, run_named, serialize
    from kg.query.oxigraph_source import OxigraphSource

    source = open_source(store=args.store)
    assert isinstance(source, OxigraphSource)
    if args.plain:
        source.links = None
    labels = top_labels(source, args.labels)[:: args.every]
    print(f"{args.store}: link index {'off' if source.links is None else 'on'}, "
          f"{len(labels)} labels, load average {os.getloadavg()[0]:.1f}")
    for name, param in POOL:
        costs = []
        for label in labels:
            started = time.process_time()
            result = run_named(source, name, {param: label}, limit=PAGE)
            serialize(result, ResultFormat.JSON)
            costs.append((time.process_time() - started, label))
        ms = sorted(cost * 1000 for cost, _ in costs)

        def q(p: float, ms: list[float] = ms) -> float:
            return ms[min(int(len(ms) * p), len(ms) - 1)]

        print(f"{name}: {len(ms)} requests, CPU {sum(ms) / 1000:.2f} s; p50 {q(0.5):.1f}, "
              f"p90 {q(0.9):.1f}, p99 {q(0.99):.1f}, max {ms[-1]:.1f} ms")
        worst = sorted(costs, reverse=True)[:3]
        print("   most: " + ", ".join(f"{label!r} {cost * 1000:.0f} ms" for cost, label in worst))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
