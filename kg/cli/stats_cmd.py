"""`kg stats GRAPH`: print a summary of a built graph (any RDF format, read with pyoxigraph)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.rdf.stats import format_stats, graph_stats


@click.command("stats")
@click.argument("graph", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--top",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="How many concepts to list by paper count (0: none).",
)
def stats_command(graph: Path, top: int) -> None:
    """Count papers, concepts by type, links by role and evidence in GRAPH.

    GRAPH is an RDF file written by `kg build` (.ttl, .nt, .jsonld or any format pyoxigraph
    reads, optionally .gz); the format comes from the extension, else from the content.
    """
    click.echo(format_stats(graph_stats(graph, top=top)), nl=False)
