"""Commands `kg query`, `kg queries`, `kg load` and `kg serve`: thin layers over `kg.query`,
`kg.query.store`, `kg.query.remote` and `kg.server`."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

import click

from kg.cli import main
from kg.errors import KGError, QueryError

FORMATS = ["table", "csv", "tsv", "json", "xml", "turtle", "ntriples", "rdfxml"]
_NAME = re.compile(r"[a-z][a-z0-9-]*")


def _fail(exc: KGError) -> NoReturn:
    click.echo(f"error: {exc}", err=True)
    raise SystemExit(exc.exit_code)


def _params(pairs: tuple[str, ...]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise QueryError(f"--param takes NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values


def _free_bindings(values: dict[str, str]) -> dict[str, object]:
    """Bindings for a query typed by hand: `<…>` is an IRI, anything else a string."""
    from kg.query.bind import parse_iri

    return {
        name: parse_iri(value, where=f"--param {name}") if value.startswith("<") else value
        for name, value in values.items()
    }


@main.command("query")
@click.argument("args", nargs=-1, metavar="[SOURCE] [QUERY]")
@click.option(
    "-f",
    "--file",
    "query_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the SPARQL query from this .rq file instead of the command line.",
)
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    help="Query the Oxigraph store in this folder (then give no SOURCE).",
)
@click.option("--endpoint", metavar="URL", help="Query this SPARQL 1.1 endpoint (no SOURCE).")
@click.option(
    "-p",
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="Bind a parameter (repeatable). Named queries convert it by kind; in a query you "
    "write, ?NAME becomes the string VALUE, or an IRI when written <…>.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Output format: table (default for SELECT/ASK), csv, tsv, json, xml (SPARQL results);"
    " turtle (default for CONSTRUCT/DESCRIBE), ntriples, rdfxml.",
)
@click.option("--limit", type=click.IntRange(min=0), help="Output at most this many rows.")
@click.option(
    "--engine",
    type=click.Choice(["auto", "rdflib", "oxigraph"]),
    default="auto",
    show_default=True,
    help="How to hold a graph file in memory: auto picks rdflib for files up to 20 MB.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the results to this file instead of standard output.",
)
@click.option(
    "--max-width",
    type=click.IntRange(min=5),
    default=60,
    show_default=True,
    help="Cut table cells longer than this many characters.",
)
@click.option(
    "--timeout",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds to wait for an --endpoint.",
)
def query_command(
    args: tuple[str, ...],
    query_file: Path | None,
    store: Path | None,
    endpoint: str | None,
    params: tuple[str, ...],
    fmt: str | None,
    limit: int | None,
    engine: str,
    output: Path | None,
    max_width: int,
    timeout: float,
) -> None:
    """Run a SPARQL query, or a named query (see `kg queries`), on a graph.

    \b
    SOURCE is a graph file (Turtle, N-Triples, RDF/XML, JSON-LD, ...; .gz too) or a store
    folder; QUERY is SPARQL text or the name of a named query:
      kg query graph.ttl 'SELECT * WHERE { ?s ?p ?o } LIMIT 5'
      kg query graph.ttl -f my.rq
      kg query graph.ttl papers-using --param concept="diffusion model"
      kg query --store graph.db top-concepts --param type=Task --format csv
      kg query --endpoint http://127.0.0.1:7878/query papers-using -p concept=LLM
    A syntax error prints its line and column and exits with code 2.
    """
    from kg.query import ResultFormat, default_format, open_source, serialize
    from kg.query.bind import Hints, hints, resolve

    try:
        positional = list(args)
        source_arg = None if (store or endpoint) else (positional.pop(0) if positional else None)
        if source_arg is None and not (store or endpoint):
            raise QueryError("give a SOURCE (graph file or store folder), --store or --endpoint")
        if query_file is not None:
            if positional:
                raise QueryError("give the query either with -f FILE or as QUERY, not both")
            text = query_file.read_text(encoding="utf-8")
        elif len(positional) == 1:
            text = positional[0]
        else:
            raise QueryError(
                "give one QUERY (SPARQL text or a named query; see `kg queries`) or -f FILE"
                + (f"; got {len(positional)} arguments" if positional else "")
            )
        values = _params(params)
        bindings: Mapping[str, object]
        if _NAME.fullmatch(text.strip()):
            from kg.query import named as queries

            named = queries.get(text.strip())
            sparql, bindings = named.text, resolve(named, values)
            query_hints = hints(named, values)
        else:
            sparql, bindings, query_hints = text, _free_bindings(values), Hints()
        with open_source(
            source_arg, store=store, endpoint=endpoint, engine=engine, timeout=timeout
        ) as source:
            result = source.query(sparql, bindings, limit=limit, hints=query_hints)
        chosen = ResultFormat(fmt) if fmt else default_format(result)
        data = serialize(result, chosen, max_width=max_width)
    except KGError as exc:
        _fail(exc)
    if output is not None:
        output.write_bytes(data)
    else:
        click.echo(data, nl=False)
    if chosen is ResultFormat.TABLE and result.form == "SELECT":
        note = f"{len(result.rows)} row{'s' if len(result.rows) != 1 else ''}"
        if result.truncated:
            note += f" (cut at --limit {limit})"
        click.echo(note, err=True)


@main.command("queries")
@click.argument("name", required=False)
def queries_command(name: str | None) -> None:
    """List the named queries, or show one in full (description, parameters, SPARQL).

    Run one with `kg query SOURCE NAME --param KEY=VALUE`.
    """
    import shlex

    from kg.query import named as queries

    if name is None:
        for named in queries.all_queries():
            usage = " ".join(p.usage for p in named.params)
            click.echo(f"{named.name}  {usage}".rstrip())
            click.echo(f"    {named.summary}")
        return
    try:
        named = queries.get(name)
    except KGError as exc:
        _fail(exc)
    click.echo(f"{named.name} ({named.form})\n\n{named.description}\n")
    if named.params:
        click.echo("Parameters:")
        for param in named.params:
            extra = (
                "required"
                if param.required
                else (f"default {param.default}" if param.default is not None else "optional")
            )
            click.echo(f"  {param.name} ({param.kind.value}, {extra}): {param.description}")
        click.echo("")
    example = " ".join(f"--param {k}={shlex.quote(v)}" for k, v in named.example.items())
    click.echo(f"Example:\n  kg query graph.ttl {named.name} {example}".rstrip() + "\n")
    click.echo(named.text.rstrip())


@main.command("load")
@click.argument("graph", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    help="Bulk-load into the Oxigraph store in this folder (created when missing).",
)
@click.option(
    "--endpoint",
    metavar="URL",
    help="Push to a server: its Graph Store URL (--protocol gsp, e.g. "
    "http://127.0.0.1:7878/store) or its update URL (--protocol update).",
)
@click.option(
    "--graph", "graph_iri", metavar="IRI", help="Named graph to write (default graph otherwise)."
)
@click.option(
    "--protocol",
    type=click.Choice(["gsp", "update"]),
    default="gsp",
    show_default=True,
    help="How to push to --endpoint: Graph Store Protocol, or one SPARQL Update request.",
)
@click.option(
    "--append",
    is_flag=True,
    help="Add to what the store or graph holds instead of replacing it.",
)
def load_command(
    graph: Path,
    store: Path | None,
    endpoint: str | None,
    graph_iri: str | None,
    protocol: str,
    append: bool,
) -> None:
    """Load a graph file into an Oxigraph store folder or push it to a SPARQL server.

    \b
    Loads are all or nothing: if anything fails, the store or graph keeps its old contents.
      kg load out/graph.ttl --store out/graph.db
      kg load out/graph.ttl --endpoint http://127.0.0.1:7878/store --graph https://example.org/g
    """
    try:
        if (store is None) == (endpoint is None):
            raise QueryError("give exactly one of --store DIR and --endpoint URL")
        if store is not None:
            if graph_iri is not None:
                raise QueryError("--graph applies to --endpoint; a store holds one graph")
            from kg.query.store import load_store

            summary = load_store(store, graph, replace=not append).summary()
        else:
            from kg.query.remote import push_graph

            assert endpoint is not None
            summary = push_graph(
                endpoint, graph, graph=graph_iri, replace=not append, protocol=protocol
            ).summary()
    except KGError as exc:
        _fail(exc)
    except ValueError as exc:
        _fail(QueryError(f"--graph: {exc}"))
    click.echo(summary)


@main.command("serve")
@click.argument("source", required=False)
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    help="Serve the Oxigraph store in this folder (then give no SOURCE).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; the default keeps the endpoint on this machine.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=7878,
    show_default=True,
    help="Port to listen on (0 picks a free one and prints it).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds a query may run before it is stopped (HTTP 503).",
)
@click.option(
    "--max-rows",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Send at most this many result rows (or triples).",
)
@click.option(
    "--max-request-bytes",
    type=click.IntRange(min=1024),
    default=1_000_000,
    show_default=True,
    help="Refuse larger requests (HTTP 413).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Query processes (each holds the graph; a timed-out one is replaced).",
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "rdflib", "oxigraph"]),
    default="auto",
    show_default=True,
    help="How workers hold a graph file in memory (see kg query).",
)
def serve_command(
    source: str | None,
    store: Path | None,
    host: str,
    port: int,
    timeout: float,
    max_rows: int,
    max_request_bytes: int,
    workers: int,
    engine: str,
) -> None:
    """Serve a graph as a read-only SPARQL 1.1 endpoint at /sparql, with a query page at /.

    \b
    SOURCE is a graph file or a store folder:
      kg serve out/graph.ttl            # then open http://127.0.0.1:7878/
      kg serve --store out/graph.db --port 8000 --timeout 10
    """
    from kg.server import ServerConfig, serve

    config = ServerConfig(
        source=source,
        store=str(store) if store else None,
        engine=engine,
        timeout=timeout,
        max_rows=max_rows,
        max_request_bytes=max_request_bytes,
        workers=workers,
    )
    try:
        serve(config, host=host, port=port, announce=click.echo)
    except KGError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        sys.exit(0)
