"""`kg load`: a graph file into an Oxigraph store folder (`kg.query.store.load_store`) or
pushed to a SPARQL server (`kg.query.remote.push_graph`)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.errors import QueryError
from kg.query.remote import push_graph
from kg.query.store import load_store


@click.command("load")
@click.argument("graph", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Bulk-load into the Oxigraph store in this folder (created when missing).")
@click.option("--endpoint", metavar="URL",
              help="Push to a server: its Graph Store URL (--protocol gsp, e.g. "
              "http://127.0.0.1:7878/store) or its update URL (--protocol update).")
@click.option("--graph", "graph_iri", metavar="IRI",
              help="Named graph to write (default graph otherwise).")
@click.option("--protocol", type=click.Choice(["gsp", "update"]), default="gsp",
              show_default=True,
              help="How to push to --endpoint: Graph Store Protocol, or one SPARQL Update request.")
@click.option("--append", is_flag=True,
              help="Add to what the store or graph holds instead of replacing it.")
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
    if store is not None and endpoint is None:
        if graph_iri is not None:
            raise QueryError("--graph applies to --endpoint; a store holds one graph")
        click.echo(load_store(store, graph, replace=not append).summary())
    elif endpoint is not None and store is None:
        report = push_graph(endpoint, graph, graph=graph_iri, replace=not append,
                            protocol=protocol)
        click.echo(report.summary())
    else:
        raise QueryError("give exactly one of --store DIR and --endpoint URL")
