"""`kg eval`: score a graph against a paper -> concept gold file, or the trained entity
recogniser against an annotated corpus (SciERC JSON, TDMSci CoNLL)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.cli import main
from kg.errors import KGError


@main.command(name="eval")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--details/--no-details", default=True,
              help="Also list misses, false positives, wrong types and role errors.")
@click.option("--model", type=click.Path(path_type=Path), default=None,
              help="Entity model to score on SciERC/TDMSci (default: the shipped one).")
def eval_(files: tuple[Path, ...], details: bool, model: Path | None) -> None:
    """Score extraction quality.

    `kg eval GRAPH GOLD` scores a built graph against a gold file like
    ../shared/data/gold/iclr2025_gold.json (must-recall, precision, F1, type accuracy,
    proposes precision/recall). `kg eval CORPUS` scores the entity recogniser on SciERC JSON or
    TDMSci CoNLL (micro precision/recall/F1, exact span and type, by type).
    """
    from kg.eval.graph import evaluate, is_paper_gold, load_gold, predictions_from_graph

    try:
        if len(files) == 2 and is_paper_gold(files[1]):
            abstracts, preds = predictions_from_graph(files[0])
            report = evaluate(load_gold(files[1]), abstracts, preds)
            click.echo(report.summary())
            if details:
                click.echo(report.details())
            return
        if len(files) == 1 and not is_paper_gold(files[0]):
            from kg.eval.ner import evaluate_entities
            from kg.extract.recogniser import shipped_model

            entity_report = evaluate_entities(model or shipped_model(), files[0])
            click.echo(entity_report.table())
            return
    except KGError as exc:
        click.echo(f"kg eval: {exc}", err=True)
        raise SystemExit(exc.exit_code) from exc
    click.echo("kg eval: give GRAPH GOLD (a paper gold file) or one SciERC/TDMSci corpus",
               err=True)
    raise SystemExit(2)
