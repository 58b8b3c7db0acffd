"""`kg analyze GRAPH | --store DIR`: the field's structure, computed and written into the graph
(`kg.analyze`)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.analyze import AnalyzeConfig, analyze_file, analyze_store
from kg.errors import QueryError
from kg.namespaces import DEFAULT_BASE


@click.command("analyze")
@click.argument("graph", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--store", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Analyse the Oxigraph store in this folder instead of a graph file.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the analysed graph here instead of replacing GRAPH (.ttl or .nt).")
@click.option("--base", default=DEFAULT_BASE, show_default=True,
              help="Base IRI of the community nodes (the graph's --base).")
@click.option("--min-papers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Concepts in fewer papers stay out of the co-occurrence network.")
@click.option("--seed", type=int, default=42, show_default=True,
              help="Random seed of the Leiden communities (same seed, same communities).")
@click.option("--similar", "similar", type=click.IntRange(min=1), default=5, show_default=True,
              help="Similar papers kept per paper.")
@click.option("--related", type=click.IntRange(min=1), default=5, show_default=True,
              help="Related concepts kept per concept.")
def analyze_command(graph: Path | None, store: Path | None, output: Path | None, base: str,
                    min_papers: int, seed: int, similar: int, related: int) -> None:
    """Compute communities, centrality, trends and similarity and write them into the graph.

    \b
    The concept co-occurrence network (association strength), its Leiden communities,
    PageRank and link strength, per-concept trends with Kleinberg bursts, the most similar
    papers and related concepts — as RDF (docs/VOCABULARY.md, "Analytics"). A previous
    analysis is replaced.
      kg analyze out/graph.ttl
      kg analyze out/graph.ttl -o out/analysed.ttl
      kg analyze --store out/graph.db
    """
    if (graph is None) == (store is None):
        raise QueryError("give exactly one of GRAPH and --store DIR")
    config = AnalyzeConfig(min_papers=min_papers, seed=seed, similar_papers=similar,
                           related_concepts=related)
    if store is not None:
        if output is not None:
            raise QueryError("-o applies to a graph file; a store is analysed in place")
        report = analyze_store(store, config=config, base=base)
    else:
        assert graph is not None
        report = analyze_file(graph, output, config=config, base=base)
    click.echo(report.format())
