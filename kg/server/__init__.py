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

from kg.errors import QueryError


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
    workers: int = 2
    spare_workers: int = 2  # held back for when slow queries hold the others
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
    from kg.server.handler import SparqlServer
    from kg.server.page import render_page
    from kg.server.workers import SourceSpec, WorkerPool

    if sum(x is not None for x in (config.source, config.store, config.endpoint)) != 1:
        raise QueryError("give exactly one of a graph file or store folder, --store DIR")
    spec = SourceSpec(config.source, config.store, config.endpoint, config.engine)
    pool = WorkerPool(
        spec,
        size=config.workers,
        timeout=config.timeout,
        spares=config.spare_workers,
        slow_after=config.slow_after,
        max_waiting=config.max_waiting,
    )
    try:
        server = SparqlServer((host, port), pool, config, render_page(pool.description))
    except OSError as exc:
        pool.close()
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


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)
