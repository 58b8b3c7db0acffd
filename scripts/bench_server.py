"""Load test of `kg serve`: fast named queries from many clients while slow queries run.

    python scripts/bench_server.py --store out/graph.db [--clients 50] [--slow 2]
        [--seconds 60] [--labels 300] [--workers 2] [--named-workers 2] [--spare-workers 2]
        [--timeout 30]
        [--cache-mb 64]
    python scripts/bench_server.py --graph out/graph.ttl ...

Starts `kg serve` on a free port, then for `--seconds`: `--clients` threads, each on its own
keep-alive HTTP/1.1 connection (spread over `--client-processes` processes: one Python process
would measure its own GIL), send fast requests back to back, each picked at random (seeded)
from a pool: papers-using, co-occurring and search for each of the `--labels` concepts in the
most papers (3 x labels distinct requests), and a small SPARQL SELECT. `--slow` more threads
send a deliberately slow query (a four-way cross join that runs to the server's `--timeout`)
again and again. Nothing is sent before the clock starts, so every distinct request is first
answered by a worker (a cache miss) during the run.

Prints, for the fast requests: count, errors (any status but 200), requests/s, p50, p90, p99
and max latency as the clients saw it; then where the server says the time went (its
Server-Timing header): the share answered from the result cache, and for the others the time
waiting for a worker and running in it (p50/p99); and what the slow requests got. Timing on a
shared machine is noisy: compare within one run, and read the load average printed with it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
LABELS = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?label WHERE {{ ?c kg:paperCount ?n ; skos:prefLabel ?label }} ORDER BY DESC(?n) ?label
LIMIT {limit}"""
SMALL = """PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?c ?l WHERE { ?c skos:prefLabel ?l } LIMIT 10"""
_TIMING = re.compile(r"(\w+);dur=([0-9.]+)")


@dataclass(frozen=True, slots=True)
class Sample:
    """One answered request: status, latency seen by the client, and the server's account."""

    status: int
    seconds: float
    hit: bool = False
    wait: float | None = None  # seconds waiting for a worker (misses)
    run: float | None = None  # seconds in the worker (misses)


def start(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    kg = str(Path(sys.executable).with_name("kg"))
    source = ["--store", str(args.store)] if args.store else [str(args.graph)]
    command = [
        kg, "serve", *source, "--port", "0", "--workers", str(args.workers),
        "--named-workers", str(args.named_workers), "--spare-workers", str(args.spare_workers),
        "--timeout", str(args.timeout), "--cache-mb", str(args.cache_mb),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("SPARQL endpoint: "):
            return process, line.split()[-1].removesuffix("/sparql")
    raise SystemExit("kg serve did not start")


def request(conn: http.client.HTTPConnection, path: str) -> Sample:
    started = time.perf_counter()
    conn.request("GET", path, headers={"Accept": "application/sparql-results+json"})
    response = conn.getresponse()
    response.read()
    seconds = time.perf_counter() - started
    timing = response.getheader("Server-Timing") or ""
    parts = {name: float(ms) / 1000 for name, ms in _TIMING.findall(timing)}
    return Sample(response.status, seconds, "cache;desc=hit" in timing, parts.get("wait"),
                  parts.get("run"))


def top_labels(base: str, labels: int, store: Path | None) -> list[str]:
    """The labels of the `labels` concepts in the most papers: from the store itself when
    given (the query sorts every concept: over a minute on the 35k-paper store, past the
    server's time limit on a busy machine), else from the server."""
    query = LABELS.format(limit=labels)
    if store is not None:
        import pyoxigraph as ox

        from kg.query.labels import data_graphs

        opened = ox.Store.read_only(str(store))
        answer = opened.query(query, default_graph=data_graphs(opened))
        assert isinstance(answer, ox.QuerySolutions)
        found = [row["label"].value for row in answer]
        del opened, answer
        return found
    netloc = urllib.parse.urlsplit(base).netloc
    conn = http.client.HTTPConnection(netloc, timeout=300)
    conn.request("GET", "/sparql?" + urllib.parse.urlencode({"query": query}),
                 headers={"Accept": "application/sparql-results+json"})
    rows = json.loads(conn.getresponse().read())["results"]["bindings"]
    return [row["label"]["value"] for row in rows]


def fast_paths(base: str, labels: int, store: Path | None = None) -> list[str]:
    """Named queries that look up one concept (papers-using, co-occurring, search) for each of
    the `labels` concepts in the most papers, and a small SELECT. Whole-graph listings
    (top-concepts, acronyms) are not "fast" and stay out."""
    found = top_labels(base, labels, store) or ["transformer"]
    paths = []
    for label in found:
        for name, param in (
            ("papers-using", "concept"), ("co-occurring", "concept"), ("search", "text"),
        ):
            paths.append(f"/queries/{name}?" + urllib.parse.urlencode({param: label}))
    paths += ["/sparql?" + urllib.parse.urlencode({"query": SMALL})]
    return paths


def run_clients(netloc: str, paths: list[str], ids: list[int], stop: float) -> list[Sample]:
    """Client threads `ids` (one keep-alive connection each) sending requests picked at random
    from `paths` until the monotonic clock reaches `stop`; their samples."""
    samples: list[Sample] = []
    lock = threading.Lock()

    def client(i: int) -> None:
        rng = random.Random(i)
        conn = http.client.HTTPConnection(netloc, timeout=120)
        while time.monotonic() < stop:
            try:
                result = request(conn, rng.choice(paths))
            except (OSError, http.client.HTTPException):
                result = Sample(0, 0.0)
                conn = http.client.HTTPConnection(netloc, timeout=120)
            with lock:
                samples.append(result)

    threads = [threading.Thread(target=client, args=(i,)) for i in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return samples


def _ms(values: list[float], q: int) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0] * 1000:.0f}"
    return f"{statistics.quantiles(sorted(values), n=100, method='inclusive')[q - 1] * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--store", type=Path)
    given.add_argument("--graph", type=Path)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--slow", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--labels", type=int, default=300,
                        help="concepts whose three lookups make the pool of fast requests")
    parser.add_argument("--workers", type=int, default=2, help="the /sparql lane")
    parser.add_argument("--named-workers", type=int, default=2, help="the named queries' lane")
    parser.add_argument("--spare-workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--cache-mb", type=int, default=64)
    parser.add_argument("--client-processes", type=int, default=5,
                        help="processes the fast clients are spread over")
    args = parser.parse_args()

    process, base = start(args)
    netloc = urllib.parse.urlsplit(base).netloc
    try:
        paths = fast_paths(base, args.labels, args.store)
        fast: list[Sample] = []
        slow: list[Sample] = []
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds

        def slow_client(i: int) -> None:
            conn = http.client.HTTPConnection(netloc, timeout=args.timeout * 3 + 60)
            # Each its own text: identical requests would be answered by one run.
            path = "/sparql?" + urllib.parse.urlencode({"query": f"{SLOW} # client {i}"})
            while time.monotonic() < stop:
                try:
                    result = request(conn, path)
                except (OSError, http.client.HTTPException):
                    result = Sample(0, 0.0)
                    conn = http.client.HTTPConnection(netloc, timeout=args.timeout * 3 + 60)
                with lock:
                    slow.append(result)

        # The fast clients run in several processes, each with its own GIL, so that the
        # latency measured is the server's and not fifty threads queueing for one lock.
        groups = [list(range(args.clients))[k::args.client_processes]
                  for k in range(args.client_processes)]
        threads = [threading.Thread(target=slow_client, args=(i,)) for i in range(args.slow)]
        began = time.monotonic()
        with ProcessPoolExecutor(len(groups), mp_context=mp.get_context("fork")) as pool:
            futures = [pool.submit(run_clients, netloc, paths, ids, stop) for ids in groups]
            for thread in threads:
                thread.start()
            for future in futures:
                fast.extend(future.result())
            for thread in threads:
                thread.join()
        elapsed = time.monotonic() - began
    finally:
        process.terminate()
        process.wait(timeout=30)
    answered = [s for s in fast if s.status == 200]
    errors = len(fast) - len(answered)
    if not answered:
        raise SystemExit(f"no fast request succeeded ({errors} errors)")
    times = sorted(s.seconds for s in answered)
    misses = [s for s in answered if not s.hit]
    print(
        f"{args.clients} clients + {args.slow} slow, {elapsed:.0f} s, workers {args.workers} "
        f"(/sparql) and {args.named_workers} (named) + {args.spare_workers} spare, "
        f"timeout {args.timeout:g} s, cache {args.cache_mb} MB, "
        f"clients in {args.client_processes} processes, "
        f"{len(paths)} distinct fast requests, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"fast: {len(fast)} requests, {errors} errors, {len(fast) / elapsed:.0f} req/s; "
        f"p50 {_ms(times, 50)} ms, p90 {_ms(times, 90)} ms, p99 {_ms(times, 99)} ms, "
        f"max {times[-1] * 1000:.0f} ms"
    )
    print(
        f"server: {len(answered) - len(misses)} answered from the cache "
        f"({(len(answered) - len(misses)) / len(answered):.0%}); {len(misses)} by a worker: "
        f"client-seen p50 {_ms([s.seconds for s in misses], 50)} / p99 "
        f"{_ms([s.seconds for s in misses], 99)} ms, of which waiting for a worker p50 "
        f"{_ms([s.wait for s in misses if s.wait is not None], 50)} / p99 "
        f"{_ms([s.wait for s in misses if s.wait is not None], 99)} ms and running p50 "
        f"{_ms([s.run for s in misses if s.run is not None], 50)} / p99 "
        f"{_ms([s.run for s in misses if s.run is not None], 99)} ms"
    )
    statuses = sorted({s.status for s in slow})
    print(f"slow: {len(slow)} requests answered, statuses {statuses}")


if __name__ == "__main__":
    main()
