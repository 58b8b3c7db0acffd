"""`kg train`: (re)train the scientific-entity pipeline reproducibly (fixed seed, CPU)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from kg.extract.recogniser import MODEL_DIR
from kg.train.recogniser import TrainOptions, train_model

_DATA = Path("..") / "shared" / "data"


@click.command("train")
@click.option(
    "--train",
    "train_path",
    type=click.Path(path_type=Path),
    default=_DATA / "scierc" / "train.json",
    show_default=True,
    help="SciERC training split (JSON lines).",
)
@click.option(
    "--dev",
    "dev_path",
    type=click.Path(path_type=Path),
    default=_DATA / "scierc" / "dev.json",
    show_default=True,
    help="SciERC dev split: picks the best checkpoint and is scored at the end.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to write the pipeline [default: the package's kg/data/model].",
)
@click.option(
    "--vectors",
    type=click.Path(path_type=Path),
    default=None,
    help="Static floret vectors from scripts/train_vectors.py (lowercased tokens).",
)
@click.option(
    "--tdmsci",
    type=click.Path(path_type=Path),
    default=None,
    help="TDMSci CoNLL to add to the training data (its unannotated tokens count "
    "as unknown, not as outside).",
)
@click.option(
    "--init-tok2vec",
    type=click.Path(path_type=Path),
    default=None,
    help="Pretrained tok2vec weights from scripts/train_pretrain.py (same width/depth/vectors).",
)
@click.option(
    "--component",
    type=click.Choice(["ner", "spancat"]),
    default=None,
    help="The entity component to train [default: the shipped model's, see docs/MODEL.md].",
)
@click.option("--width", type=int, default=None, help="tok2vec width.")
@click.option("--depth", type=int, default=None, help="tok2vec CNN depth.")
@click.option("--steps", type=int, default=None, help="Maximum training steps.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option(
    "--limit",
    type=int,
    default=0,
    show_default=True,
    help="Train on the first N documents only (0: all); for smoke tests.",
)
def train_command(
    train_path: Path,
    dev_path: Path,
    output: Path | None,
    vectors: Path | None,
    tdmsci: Path | None,
    init_tok2vec: Path | None,
    component: str | None,
    width: int | None,
    depth: int | None,
    steps: int | None,
    seed: int,
    limit: int,
) -> None:
    """Train the entity pipeline on SciERC and print its SciERC dev scores."""
    options = TrainOptions(
        vectors=vectors, tdmsci=tdmsci, init_tok2vec=init_tok2vec, seed=seed, limit=limit
    )
    given: dict[str, Any] = {
        "component": component,
        "width": width,
        "depth": depth,
        "max_steps": steps,
    }
    options = replace(options, **{k: v for k, v in given.items() if v is not None})
    result = train_model(train_path, dev_path, output or MODEL_DIR, options)
    click.echo(result.dev.table())
    click.echo(
        f"pipeline: {result.model_dir} ({result.size_bytes / 2**20:.1f} MB, "
        f"trained in {result.seconds:.0f} s)"
    )
