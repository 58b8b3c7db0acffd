"""`kg serve`: a read-only SPARQL 1.1 endpoint with a query page.

`serve(config, host=..., port=...)` starts the query workers (each opens the source), then
answers HTTP until interrupted; see `handler` for the routes and `workers` for how a query
that runs too long is stopped.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from kg.errors import QueryError

if TYPE_CHECKING:
    from kg.server.workers import SourceSpec, WorkerPool


# The CPU priority (niceness) of the workers that run SPARQL sent by users: on an idle machine
# it changes nothing; on a busy one the named queries, the service's short answers, go first
# (starting a worker and the first second of a slow query included).
SPARQL_NICE = 10


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What `kg serve` serves and its limits."""

    source: str | None = None
    store: str | None = None
    endpoint: str | None = None
    engine: str = "auto"
    timeout: float = 30.0
    page_timeout: float = 300.0  # /graph and /vocabulary: built once per source version
    cache_mb: int = 64  # query results kept per source version (0: none)
    max_rows: int = 10_000
    page_rows: int = 100  # named queries: rows a page (`offset`, `limit` ask for others)
    max_request_bytes: int = 1_000_000
    workers: int = 2  # SPARQL sent by users, and the browser pages
    named_workers: int = 2  # named queries: their own lane, never queued behind the others
    spare_workers: int = 2  # in each lane, held back for when slow queries hold the others
    slow_after: float = 1.0  # seconds after which a query counts as slow
    max_waiting: int = 64  # requests waiting for a worker; more get 503 at once
    max_connections: int = 256
    cors: tuple[str, ...] = ()  # origins allowed to read answers from a browser ("*": any)
    allow_hosts: tuple[str, ...] = ()  # more names the Host header may give


def serve(
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 7878,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until SIGINT/SIGTERM; `announce` receives the URL lines once ready."""
    from kg.query import named as named_queries
    from kg.server.handler import SparqlServer
    from kg.server.page import render_page
    from kg.server.workers import SourceSpec

    if sum(x is not None for x in (config.source, config.store, config.endpoint)) != 1:
        raise QueryError("give exactly one of a graph file or store folder, --store DIR")
    _index_store(config)
    spec = SourceSpec(config.source, config.store, config.endpoint, config.engine,
                      trusted=named_queries.checked_texts())
    pool, named_pool = _open_lanes(spec, config)
    try:
        server = SparqlServer((host, port), pool, config, render_page(pool.description),
                              named_pool=named_pool)
    except OSError as exc:
        pool.close()
        named_pool.close()
        raise QueryError(f"cannot listen on {host}:{port}: {exc}") from exc
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        bound_host, bound_port = server.server_address[:2]
        base = f"http://{_url_host(str(bound_host))}:{bound_port}"
        announce(f"Serving {pool.description}")
        announce(f"SPARQL endpoint: {base}/sparql")
        announce(f"Query page:      {base}/")
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"kg serve: listening on {host}, reachable from other machines", file=sys.stderr)
        sys.stdout.flush()
        server.serve_forever()
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        pool.close()
        named_pool.close()


def _open_lanes(spec: SourceSpec, config: ServerConfig) -> tuple[WorkerPool, WorkerPool]:
    """The two lanes of query workers, started side by side: one for SPARQL written by users
    and the browser pages (any of which may run to the time limit: they run at a lower CPU
    priority, `SPARQL_NICE`, and their slow queries at the lowest), one for the named queries
    (short, and never queued behind the others)."""
    from concurrent.futures import ThreadPoolExecutor

    from kg.server.workers import WorkerPool, watch_together

    def lane(size: int, yield_when_slow: bool, nice: int) -> WorkerPool:
        return WorkerPool(
            spec,
            size=size,
            timeout=config.timeout,
            spares=config.spare_workers,
            slow_after=config.slow_after,
            max_waiting=config.max_waiting,
            yield_when_slow=yield_when_slow,
            nice=nice,
            watch_every=0,  # both lanes follow the source together (below)
        )

    with ThreadPoolExecutor(2) as starting:
        opened = [starting.submit(lane, config.workers, True, SPARQL_NICE),
                  starting.submit(lane, config.named_workers, False, 0)]
        failures = [f.exception() for f in opened]
    pools = [f.result() for f, failed in zip(opened, failures, strict=True) if failed is None]
    if len(pools) < 2:
        for pool in pools:
            pool.close()
        raise next(failed for failed in failures if failed is not None)
    watch_together(pools)  # the named lane switches last: a new answer there means both have
    return pools[0], pools[1]


def _index_store(config: ServerConfig) -> None:
    """Give a store folder its link index if it has none that fits (a store from an older
    paperkg): the named queries a service gets most are answered from it (`kg.query.answers`).
    Written once, before the workers open the store; a folder that cannot be written is served
    without it."""
    from pathlib import Path

    from kg.errors import StoreError
    from kg.query.store import index_links

    folder = config.store or config.source
    if folder is None or config.endpoint is not None or not Path(folder).is_dir():
        return
    try:
        seconds = index_links(folder)
    except StoreError as exc:
        print(f"kg serve: serving without a link index: {exc}", file=sys.stderr)
        return
    if seconds is not None:
        print(f"kg serve: wrote the store's link index in {seconds:.1f} s", file=sys.stderr)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)
