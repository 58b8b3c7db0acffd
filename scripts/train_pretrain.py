"""Pretrain the entity model's tok2vec on the conference abstracts (`spacy pretrain`).

The objective is spaCy's character objective (predict each token's first and last 4
characters from its context), as in `spacy pretrain`'s default; the weights then initialise
`kg train --init-tok2vec` (TrainOptions.init_tok2vec). The tok2vec settings here must equal the
training run's (width, depth, vectors).

Usage: python scripts/train_pretrain.py OUT_DIR [--vectors F] [--width 96] [--depth 4]
       [--epochs 2] [--max-texts 0]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from train_vectors import DEFAULT_PAPERLISTS, abstracts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for model{epoch}.bin and log.jsonl")
    parser.add_argument("--paperlists", type=Path, default=DEFAULT_PAPERLISTS)
    parser.add_argument("--vectors", type=Path)
    parser.add_argument("--width", type=int, default=96)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--max-texts", type=int, default=0, help="0: every abstract")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from spacy.cli.init_config import fill_config
    from spacy.training.pretrain import pretrain
    from spacy.util import load_config

    from kg.train.recogniser import CONFIG, TrainOptions, _vectors_pipeline

    texts = abstracts(args.paperlists)
    if args.max_texts:
        texts = texts[: args.max_texts]
    options = TrainOptions(
        vectors=args.vectors,
        width=args.width,
        depth=args.depth,
        norm_rows=args.rows,
        seed=args.seed,
    )
    with tempfile.TemporaryDirectory(prefix="kg-pretrain-") as tmp:
        work = Path(tmp)
        raw = work / "abstracts.jsonl"
        raw.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        overrides = {k: v for k, v in options.overrides().items() if not k.startswith("training.")}
        overrides["paths.raw_text"] = str(raw)
        if args.vectors is not None:
            overrides["paths.vectors"] = str(_vectors_pipeline(args.vectors, work / "vectors"))
        overrides["pretraining.max_epochs"] = args.epochs
        filled = work / "config.cfg"
        fill_config(filled, CONFIG, pretraining=True, silent=True)
        config = load_config(filled, overrides=overrides, interpolate=True)
        args.out.mkdir(parents=True, exist_ok=True)
        pretrain(config, args.out, use_gpu=-1, silent=False)


if __name__ == "__main__":
    main()
