"""`kg eval graph GRAPH GOLD`: score a graph against a paper -> concept gold file;
`kg eval ner CORPUS`: score the entity recogniser on an annotated corpus (SciERC JSON,
TDMSci CoNLL)."""

from __future__ import annotations

from pathlib import Path

import click

from kg.cli import Group
from kg.eval.graph import evaluate_graph
from kg.eval.ner import evaluate_entities
from kg.extract.recogniser import shipped_model

_TAKES_VALUE = {"--model"}


class EvalGroup(Group):
    """Also reads the old forms `kg eval GRAPH GOLD` and `kg eval CORPUS` (with a warning)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        positional = [a for i, a in enumerate(args) if _is_positional(args, i)]
        if positional and positional[0] not in self.commands:
            if len(positional) not in (1, 2):
                raise click.UsageError(
                    "give `graph GRAPH GOLD` or `ner CORPUS` (see `kg eval --help`)", ctx
                )
            command = "graph" if len(positional) == 2 else "ner"
            shown = "GRAPH GOLD" if command == "graph" else "CORPUS"
            click.echo(
                f"kg eval: warning: `kg eval {shown}` is deprecated; use "
                f"`kg eval {command} {shown}`",
                err=True,
            )
            args = [command, *args]
        return super().parse_args(ctx, args)


def _is_positional(args: list[str], i: int) -> bool:
    return not args[i].startswith("-") and (i == 0 or args[i - 1] not in _TAKES_VALUE)


@click.group("eval", cls=EvalGroup)
def eval_group() -> None:
    """Score extraction quality: a graph against gold annotations, or the entity recogniser.

    \b
      kg eval graph out/graph.ttl ../shared/data/gold/iclr2025_gold.json
      kg eval ner ../shared/data/scierc/test.json
    """


@eval_group.command("graph")
@click.argument("graph", type=click.Path(exists=True, path_type=Path))
@click.argument("gold", type=click.Path(exists=True, path_type=Path))
@click.option("--details/--no-details", default=True,
              help="Also list misses, false positives, wrong types and role errors.")
def graph_command(graph: Path, gold: Path, details: bool) -> None:
    """Score GRAPH against a paper gold file like ../shared/data/gold/iclr2025_gold.json
    (must-recall, precision, F1, type accuracy, proposes precision/recall)."""
    report = evaluate_graph(graph, gold)
    click.echo(report.summary())
    if details:
        click.echo(report.details())


@eval_group.command("ner")
@click.argument("corpus", type=click.Path(exists=True, path_type=Path))
@click.option("--model", type=click.Path(path_type=Path), default=None,
              help="Entity model to score (default: the shipped one).")
def ner_command(corpus: Path, model: Path | None) -> None:
    """Score the entity recogniser on a SciERC JSON or TDMSci CoNLL CORPUS (micro
    precision/recall/F1, exact span and type, by type)."""
    click.echo(evaluate_entities(model or shipped_model(), corpus).table())
