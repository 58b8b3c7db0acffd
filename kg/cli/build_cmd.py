"""`kg build`: paper files -> RDF graph (Turtle/N-Triples/JSON-LD), optionally store and page."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from kg.build import run_build
from kg.errors import ClusterError
from kg.extract.cluster import DEFAULT_PARTITION, DaskTarget
from kg.ingest.limits import DEFAULT_LIMITS, MIB, ReadLimits
from kg.ingest.sources import Format
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


def _stage_printer(enabled: bool) -> Callable[[str, float, str], None] | None:
    """One line per finished build stage on stderr: name, what it did, seconds."""
    if not enabled:
        return None

    def report(name: str, seconds: float, detail: str) -> None:
        click.echo(f"{name}: {detail} ({seconds:.1f} s)" if detail else
                   f"{name} ({seconds:.1f} s)", err=True)  # fmt: skip

    return report


@click.command()
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
@click.option("--analyze", is_flag=True,
              help="Also compute communities, centrality, trends and similarity (kg analyze).")
@click.option("--processes", type=int, default=None,
              help="Worker processes for extraction (default: all cores for big inputs).")
@click.option("--dask", "dask_target", metavar="TARGET", default=None,
              help="Run the extraction as Dask tasks: a scheduler address (tcp://host:8786), "
                   "a scheduler file (JSON) or local:N (a local cluster of N worker "
                   "processes). The graph is the same as without. See docs/SCALE.md.")
@click.option("--dask-partition", type=click.IntRange(min=1), default=DEFAULT_PARTITION,
              show_default=True, help="Papers per Dask task.")
@click.option("--input-format", type=click.Choice([f.value for f in Format]), default=None,
              help="Format of the inputs (needed only for `-`, standard input, when its "
                   "content does not say; default: from each file's name and content).")
@click.option("--max-field-chars", type=click.IntRange(min=1),
              default=DEFAULT_LIMITS.max_field_chars, show_default=True,
              help="Skip a record with a longer title, abstract, author or keyword.")
@click.option("--max-record-mb", type=click.FloatRange(min=0, min_open=True),
              default=DEFAULT_LIMITS.max_record_bytes / MIB, show_default=True,
              help="Skip a bigger record (JSON line, CSV row, BibTeX/RIS entry, paragraph).")
@click.option("--max-document-mb", type=click.FloatRange(min=0, min_open=True),
              default=DEFAULT_LIMITS.max_document_bytes / MIB, show_default=True,
              help="Skip a bigger file that must be parsed whole (JSON document, Atom feed).")
@click.option("--progress/--no-progress", default=True,
              help="Report each stage (reading, extraction, linking, writing, store, page) "
                   "with its time on stderr; a progress bar too on a terminal.")
@click.option("--corrections", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="YAML file of merge/split/retype/rename/reject corrections to apply "
                   "(`kg review` writes one to edit).")
@click.option("--cache", "cache_dir", type=click.Path(path_type=Path, file_okay=False),
              default=None,
              help="Parse cache folder: parses and extraction records by text hash, reused by "
                   "the next build [default: $KG_CACHE_DIR, else $XDG_CACHE_HOME/paperkg, "
                   "else ~/.cache/paperkg].")
@click.option("--no-cache", is_flag=True,
              help="Neither read nor write the parse cache (parse every text).")
@click.option("--shards", type=click.IntRange(min=0), default=0,
              help="Also write the graph as this many N-Triples files for bulk loaders "
                   "(into GRAPH.shards/ beside the graph; docs/SCALE.md).")
def build(inputs: tuple[Path, ...], output: Path, fmt: str | None, base: str, strict: bool,
          store: Path | None, html: Path | None, analyze: bool, processes: int | None,
          input_format: str | None,
          max_field_chars: int, max_record_mb: float, max_document_mb: float,
          progress: bool, corrections: Path | None, dask_target: str | None,
          dask_partition: int, cache_dir: Path | None, no_cache: bool,
          shards: int) -> None:
    """Build the knowledge graph of INPUTS: files, directories (every supported file inside)
    or `-` (standard input). Formats: text, JSON/JSON Lines (OpenAlex, Semantic Scholar, arXiv
    snapshot, OpenReview, CSL-JSON, paper lists), CSV/TSV (Zotero), BibTeX, RIS, arXiv Atom,
    PubMed .nbib; gzipped too."""
    if no_cache and cache_dir is not None:
        raise click.UsageError("--cache and --no-cache contradict each other; give one")
    limits = ReadLimits(max_field_chars=max_field_chars,
                        max_record_bytes=int(max_record_mb * MIB),
                        max_document_bytes=int(max_document_mb * MIB))
    dask = _dask_target(dask_target, dask_partition, processes)
    summary = run_build(inputs, output, fmt=fmt, base=base, strict=strict, store=store,
                        html=html, n_process=processes, input_format=input_format,
                        limits=limits, on_stage=_stage_printer(progress), analyze=analyze,
                        progress=_progress_factory(progress and sys.stderr.isatty()),
                        corrections=corrections, dask=dask,
                        cache=False if no_cache else (cache_dir or True), shards=shards)
    for warning in summary.warnings:
        click.echo(f"kg build: warning: {warning}", err=True)
    click.echo(summary.format())


def _dask_target(spec: str | None, partition: int, processes: int | None) -> DaskTarget | None:
    if spec is None:
        return None
    if processes is not None:
        raise click.UsageError("--processes and --dask exclude each other: with --dask the "
                               "cluster's workers extract (local:N for N local processes)")
    try:
        return DaskTarget.parse(spec, partition_size=partition)
    except ClusterError as exc:
        raise click.BadParameter(str(exc), param_hint="--dask") from exc
