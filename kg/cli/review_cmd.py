"""`kg review GRAPH`: write the concepts a person should check as an editable corrections file."""

from __future__ import annotations

from pathlib import Path

import click

from kg.query import open_source
from kg.query.review import write_review


@click.command("review")
@click.argument("graph", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              default=Path("corrections.yaml"), show_default=True,
              help="Corrections file to write (YAML).")
def review_command(graph: Path, output: Path) -> None:
    """List ambiguous short forms, type disagreements, the most proposed concepts and
    single-paper junk suspects of GRAPH (a graph file or an Oxigraph store folder) as a
    corrections file: edit each entry's `action`, then run
    `kg build ... --corrections FILE`."""
    with open_source(graph, engine="oxigraph") as source:
        count = write_review(source, output)
    click.echo(f"{count} candidates written to {output}")
