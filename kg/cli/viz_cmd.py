"""`kg viz SOURCE -o graph.html`: the interactive, offline browser view (`viz.render_html`)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.cli import param_option
from kg.rdf.serialize import write_atomically
from viz import build_page


@click.command("viz")
@click.argument("source")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("graph.html"),
    show_default=True,
    help="Write the page to this HTML file.",
)
@click.option(
    "--view",
    type=click.Choice(["whole", "ego", "concepts", "query", "map"]),
    default="whole",
    show_default=True,
    help="whole: the most connected part of the graph; ego: the neighbourhood of --focus; "
    "concepts: concepts only, linked by shared papers; query: the result of --query; map: the "
    "map of the field (concepts coloured by community; run `kg analyze` first to keep them).",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=None,
    help="Draw at most this many nodes (default: 300; the map: 2,000); the page says what was "
    "left out.",
)
@click.option(
    "--focus",
    metavar="LABEL",
    help="Draw the neighbourhood of this concept (label, alias or acronym) or paper (id or "
    "title); implies --view ego.",
)
@click.option(
    "--hops",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="How many links away from --focus to draw.",
)
@click.option(
    "--query",
    "query_name",
    metavar="NAME",
    help="Draw the papers and concepts this named query returns (see `kg queries`); implies "
    "--view query.",
)
@param_option("A parameter of --query (repeatable), e.g. --param concept='diffusion model'.")
@click.option(
    "--physics/--no-physics",
    default=None,
    help="Let the browser's force simulation relax the precomputed layout before the first "
    "draw (default: up to 500 nodes; slow on big pages). The page's physics switch runs it "
    "live.",
)
def viz_command(
    source: str,
    output: Path,
    view: str,
    max_nodes: int | None,
    focus: str | None,
    hops: int,
    query_name: str | None,
    params: dict[str, str],
    physics: bool | None,
) -> None:
    """Write an interactive HTML page of a graph that works offline (no network at all).

    \b
    SOURCE is a graph written by `kg build` (.ttl, .nt, .nq, .trig, ...; .gz too) or an
    Oxigraph store folder.
      kg viz graph.ttl -o graph.html
      kg viz graph.ttl --focus "diffusion model" --hops 2 -o diffusion.html
      kg viz graph.ttl --view concepts --max-nodes 150 -o concepts.html
      kg viz graph.ttl --query papers-using --param concept=LLM -o llm.html
      kg viz graph.ttl --view map -o map.html
    """
    page = build_page(source, view=view, max_nodes=max_nodes, focus=focus, hops=hops,
                      query=query_name, params=params, physics=physics)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, page.html, "the page")  # a kill or full disk keeps the old one
    size = output.stat().st_size
    click.echo(f"Wrote {output}: {page.nodes:,} nodes, {page.edges:,} links, "
               f"{size / 1e6:.1f} MB (physics {'on' if page.physics else 'off'}).")
    click.echo(page.note)
