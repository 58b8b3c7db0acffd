"""`kg build`: paper files -> RDF graph (Turtle/N-Triples/JSON-LD), optionally store and page."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from kg.cli import main
from kg.errors import KGError
from kg.namespaces import DEFAULT_BASE

# Below this many papers a progress bar is noise.
PROGRESS_MIN = 50


def _progress_factory(enabled: bool) -> Callable[[int], Callable[[int], None]] | None:
    if not enabled:
        return None

    def factory(total: int) -> Callable[[int], None]:
        if total < PROGRESS_MIN:
            return lambda n: None
        from tqdm import tqdm

        bar = tqdm(total=total, unit="paper", file=sys.stderr, desc="extracting", leave=False)
        return bar.update

    return factory


@main.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path("out/graph.ttl"),
              show_default=True, help="Graph file to write.")
@click.option("--format", "fmt", type=click.Choice(["ttl", "nt", "jsonld"]), default=None,
              help="Serialisation (default: from the output's extension).")
@click.option("--base", default=DEFAULT_BASE, show_default=True,
              help="Base IRI of papers, concepts and evidence.")
@click.option("--strict", is_flag=True,
              help="Fail (exit code 2) on any bad or duplicate input record instead of skipping.")
@click.option("--store", type=click.Path(path_type=Path), default=None,
              help="Also bulk-load the graph into an Oxigraph store in this folder.")
@click.option("--html", type=click.Path(path_type=Path), default=None,
              help="Also write the interactive browser page here.")
@click.option("--processes", type=int, default=None,
              help="Worker processes for extraction (default: all cores for big inputs).")
@click.option("--progress/--no-progress", default=True,
              help="Show a progress bar on stderr for long runs.")
def build(inputs: tuple[Path, ...], output: Path, fmt: str | None, base: str, strict: bool,
          store: Path | None, html: Path | None, processes: int | None,
          progress: bool) -> None:
    """Build the knowledge graph of INPUTS (text, JSON, JSONL, CSV, BibTeX; .gz too)."""
    from kg.build import run_build

    try:
        summary = run_build(inputs, output, fmt=fmt, base=base, strict=strict, store=store,
                            html=html, n_process=processes,
                            progress=_progress_factory(progress and sys.stderr.isatty()))
    except KGError as exc:
        click.echo(f"kg build: {exc}", err=True)
        raise SystemExit(exc.exit_code) from exc
    click.echo(summary.format())
