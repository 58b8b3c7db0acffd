"""`kg query` (a SPARQL or named query on a graph) and `kg queries` (the named queries):
thin layers over `kg.query`."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from kg.cli import param_option
from kg.errors import QueryError
from kg.query import (
    ResultFormat,
    default_format,
    is_query_name,
    open_source,
    run_named,
    run_sparql,
    serialize,
)
from kg.query import named as named_queries

FORMATS = [f.value for f in ResultFormat]


@click.command("query")
@click.argument("args", nargs=-1, metavar="[SOURCE] [QUERY]")
@click.option("-f", "--file", "query_file",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the SPARQL query from this .rq file instead of the command line.")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Query the Oxigraph store in this folder (then give no SOURCE).")
@click.option("--endpoint", metavar="URL", help="Query this SPARQL 1.1 endpoint (no SOURCE).")
@param_option("Bind a parameter (repeatable). Named queries convert it by kind; in a query you "
              "write, ?NAME becomes the string VALUE, or an IRI when written <…>.")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              help="Output format: table (default for SELECT/ASK), csv, tsv, json, xml (SPARQL "
              "results); turtle (default for CONSTRUCT/DESCRIBE), ntriples, rdfxml.")
@click.option("--limit", type=click.IntRange(min=0), help="Output at most this many rows.")
@click.option("--engine", type=click.Choice(["auto", "rdflib", "oxigraph"]), default="auto",
              show_default=True,
              help="How to hold a graph file in memory: auto picks rdflib for files up to 20 MB.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the results to this file instead of standard output.")
@click.option("--max-width", type=click.IntRange(min=5), default=60, show_default=True,
              help="Cut table cells longer than this many characters.")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds to wait for an --endpoint.")
def query_command(
    args: tuple[str, ...],
    query_file: Path | None,
    store: Path | None,
    endpoint: str | None,
    params: dict[str, str],
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
      kg query --endpoint http://127.0.0.1:7878/sparql papers-using -p concept=LLM
    A syntax error prints its line and column and exits with code 2.
    """
    source_arg, text = _source_and_query(list(args), query_file, given=bool(store or endpoint))
    with open_source(
        source_arg, store=store, endpoint=endpoint, engine=engine, timeout=timeout
    ) as source:
        run = run_named if is_query_name(text) else run_sparql
        result = run(source, text.strip() if run is run_named else text, params, limit=limit)
    chosen = ResultFormat(fmt) if fmt else default_format(result)
    data = serialize(result, chosen, max_width=max_width)
    if output is not None:
        output.write_bytes(data)
    else:
        click.echo(data, nl=False)
    if chosen is ResultFormat.TABLE and result.form == "SELECT":
        note = f"{len(result.rows)} row{'s' if len(result.rows) != 1 else ''}"
        if result.truncated:
            note += f" (cut at --limit {limit})"
        click.echo(note, err=True)


def _source_and_query(
    positional: list[str], query_file: Path | None, *, given: bool
) -> tuple[str | None, str]:
    """(SOURCE, query text) from the arguments; `given`: --store or --endpoint was."""
    source = None if given else (positional.pop(0) if positional else None)
    if source is None and not given:
        raise QueryError("give a SOURCE (graph file or store folder), --store or --endpoint")
    if query_file is not None:
        if positional:
            raise QueryError("give the query either with -f FILE or as QUERY, not both")
        return source, query_file.read_text(encoding="utf-8")
    if len(positional) != 1:
        raise QueryError(
            "give one QUERY (SPARQL text or a named query; see `kg queries`) or -f FILE"
            + (f"; got {len(positional)} arguments" if positional else "")
        )
    return source, positional[0]


@click.command("queries")
@click.argument("name", required=False)
def queries_command(name: str | None) -> None:
    """List the named queries, or show one in full (description, parameters, SPARQL).

    Run one with `kg query SOURCE NAME --param KEY=VALUE`.
    """
    if name is None:
        for named in named_queries.all_queries():
            usage = " ".join(p.usage for p in named.params)
            click.echo(f"{named.name}  {usage}".rstrip())
            click.echo(f"    {named.summary}")
        return
    named = named_queries.get(name)
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
