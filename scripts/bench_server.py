"""Load test of `kg serve`: fast named queries from many clients while slow queries run.

    python scripts/bench_server.py --store out/graph.db [--clients 50] [--slow 2]
        [--seconds 60] [--workers 2] [--spare-workers 2] [--timeout 30]
    python scripts/bench_server.py --graph out/graph.ttl ...

Starts `kg serve` on a free port, then for `--seconds`: `--clients` threads, each on its own
keep-alive HTTP/1.1 connection, send fast requests back to back (a mix of named queries with
parameters picked from the graph, and a small SPARQL SELECT); `--slow` more threads send a
deliberately slow query (a four-way cross join that runs to the server's `--timeout`) again
and again. Prints, for the fast requests: count, errors (any status but 200), requests/s,
p50, p90, p99 and max latency; and what the slow requests got. Timing on a shared machine is
noisy: compare within one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
LABELS = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?label WHERE { ?c kg:paperCount ?n ; skos:prefLabel ?label } ORDER BY DESC(?n) LIMIT 20"""
SMALL = """PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?c ?l WHERE { ?c skos:prefLabel ?l } LIMIT 10"""


def start(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    kg = str(Path(sys.executable).with_name("kg"))
    source = ["--store", str(args.store)] if args.store else [str(args.graph)]
    command = [
        kg, "serve", *source, "--port", "0", "--workers", str(args.workers),
        "--spare-workers", str(args.spare_workers), "--timeout", str(args.timeout),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("SPARQL endpoint: "):
            return process, line.split()[-1].removesuffix("/sparql")
    raise SystemExit("kg serve did not start")


def request(conn: http.client.HTTPConnection, path: str) -> tuple[int, float]:
    started = time.perf_counter()
    conn.request("GET", path, headers={"Accept": "application/sparql-results+json"})
    response = conn.getresponse()
    response.read()
    return response.status, time.perf_counter() - started


def fast_paths(base: str) -> list[str]:
    """Named queries that look up one concept (papers-using, co-occurring, search), with
    labels from the graph, and a small SELECT. Whole-graph listings (top-concepts, acronyms:
    ~0.5 s on a small graph) are not "fast" and stay out."""
    netloc = urllib.parse.urlsplit(base).netloc
    conn = http.client.HTTPConnection(netloc, timeout=120)
    conn.request("GET", "/sparql?" + urllib.parse.urlencode({"query": LABELS}))
    rows = json.loads(conn.getresponse().read())["results"]["bindings"]
    labels = [row["label"]["value"] for row in rows] or ["transformer"]
    paths = []
    for label in labels[5:15] or labels:
        for name, param in (
            ("papers-using", "concept"), ("co-occurring", "concept"), ("search", "text"),
        ):
            paths.append(f"/queries/{name}?" + urllib.parse.urlencode({param: label}))
    paths += ["/sparql?" + urllib.parse.urlencode({"query": SMALL})]
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--store", type=Path)
    given.add_argument("--graph", type=Path)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--slow", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--spare-workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()

    process, base = start(args)
    netloc = urllib.parse.urlsplit(base).netloc
    try:
        paths = fast_paths(base)
        for path in paths:  # warm every worker's caches a little
            request(http.client.HTTPConnection(netloc, timeout=120), path)
        fast: list[tuple[int, float]] = []
        slow: list[tuple[int, float]] = []
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds

        def client(i: int) -> None:
            conn = http.client.HTTPConnection(netloc, timeout=120)
            n = i
            while time.monotonic() < stop:
                try:
                    result = request(conn, paths[n % len(paths)])
                except (OSError, http.client.HTTPException):
                    result = (0, 0.0)
                    conn = http.client.HTTPConnection(netloc, timeout=120)
                with lock:
                    fast.append(result)
                n += 1

        def slow_client() -> None:
            conn = http.client.HTTPConnection(netloc, timeout=args.timeout + 60)
            path = "/sparql?" + urllib.parse.urlencode({"query": SLOW})
            while time.monotonic() < stop:
                try:
                    result = request(conn, path)
                except (OSError, http.client.HTTPException):
                    result = (0, 0.0)
                    conn = http.client.HTTPConnection(netloc, timeout=args.timeout + 60)
                with lock:
                    slow.append(result)

        threads = [threading.Thread(target=slow_client) for _ in range(args.slow)]
        threads += [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - began
    finally:
        process.terminate()
        process.wait(timeout=30)
    times = sorted(t for status, t in fast if status == 200)
    errors = sum(1 for status, _ in fast if status != 200)
    if not times:
        raise SystemExit(f"no fast request succeeded ({errors} errors)")
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    print(
        f"{args.clients} clients + {args.slow} slow, {elapsed:.0f} s, workers {args.workers} "
        f"+ {args.spare_workers} spare, timeout {args.timeout:g} s, {len(paths)} fast requests"
    )
    print(
        f"fast: {len(fast)} requests, {errors} errors, {len(fast) / elapsed:.0f} req/s; "
        f"p50 {cuts[49] * 1000:.0f} ms, p90 {cuts[89] * 1000:.0f} ms, "
        f"p99 {cuts[98] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
    )
    statuses = sorted({status for status, _ in slow})
    print(f"slow: {len(slow)} requests answered, statuses {statuses}")


if __name__ == "__main__":
    main()
