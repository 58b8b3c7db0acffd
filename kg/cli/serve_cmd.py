"""`kg serve`: a graph as a read-only SPARQL endpoint with a query page (`kg.server.serve`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kg.server import ServerConfig, serve


@click.command("serve")
@click.argument("source", required=False)
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Serve the Oxigraph store in this folder (then give no SOURCE).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; the default keeps the endpoint on this machine.")
@click.option("--port", type=click.IntRange(0, 65535), default=7878, show_default=True,
              help="Port to listen on (0 picks a free one and prints it).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Seconds a query may run before it is stopped (HTTP 503).")
@click.option("--page-timeout", type=click.FloatRange(min=0.1), default=300.0,
              show_default=True,
              help="Seconds the browser view (/graph) or the query page's term list may take "
              "to build (once per source version: they are cached).")
@click.option("--cache-mb", type=click.IntRange(min=0), default=64, show_default=True,
              help="Memory for query results, kept until the source changes (0: no cache).")
@click.option("--max-rows", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Send at most this many result rows (or triples).")
@click.option("--page-rows", type=click.IntRange(min=1), default=100, show_default=True,
              help="Rows of a named query's answer a page (/queries/NAME?offset=&limit=; a "
              "Link header points at the next page).")
@click.option("--max-request-bytes", type=click.IntRange(min=1024), default=1_000_000,
              show_default=True, help="Refuse larger requests (HTTP 413).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Query processes for SPARQL sent to /sparql and the /graph pages (each holds "
              "the graph; a timed-out one is replaced).")
@click.option("--named-workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Query processes for the named queries (/queries/NAME): a lane of their own, "
              "never queued behind slow SPARQL.")
@click.option("--spare-workers", type=click.IntRange(min=0), default=2, show_default=True,
              help="Extra query processes held ready in each lane: up to this many slow "
              "queries (over 1 s) at a time never leave fast ones waiting.")
@click.option("--engine", type=click.Choice(["auto", "rdflib", "oxigraph"]), default="auto",
              show_default=True, help="How workers hold a graph file in memory (see kg query).")
@click.option("--cors", "cors", multiple=True, metavar="ORIGIN",
              help="Let pages from this origin (e.g. http://localhost:3000; * for any) read "
              "answers in a browser (repeatable). Off by default.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also accept requests whose Host header is NAME (e.g. behind a reverse "
              "proxy); the bound address, localhost and IP addresses are always accepted.")
def serve_command(
    source: str | None,
    store: Path | None,
    host: str,
    port: int,
    timeout: float,
    page_timeout: float,
    cache_mb: int,
    max_rows: int,
    page_rows: int,
    max_request_bytes: int,
    workers: int,
    named_workers: int,
    spare_workers: int,
    engine: str,
    cors: tuple[str, ...],
    allow_hosts: tuple[str, ...],
) -> None:
    """Serve a graph as a read-only SPARQL 1.1 endpoint at /sparql, with a query page at /.

    \b
    SOURCE is a graph file or a store folder:
      kg serve out/graph.ttl            # then open http://127.0.0.1:7878/
      kg serve --store out/graph.db --port 8000 --timeout 10
    """
    config = ServerConfig(
        source=source,
        store=str(store) if store else None,
        engine=engine,
        timeout=timeout,
        page_timeout=page_timeout,
        cache_mb=cache_mb,
        max_rows=max_rows,
        page_rows=page_rows,
        max_request_bytes=max_request_bytes,
        workers=workers,
        named_workers=named_workers,
        spare_workers=spare_workers,
        cors=cors,
        allow_hosts=allow_hosts,
    )
    try:
        serve(config, host=host, port=port, announce=click.echo)
    except KeyboardInterrupt:
        sys.exit(0)
