"""Train one named model variant and log its settings, dev scores, time, size and speed.

Every variant in docs/MODEL.md was produced by this script; each run appends one JSON line to
the log so the table there can be checked against what actually ran.

Usage: python scripts/train_experiments.py NAME [--vectors F] [--tdmsci] [--width N]
       [--depth N] [--window N] [--dropout X] [--steps N] [--spancat] [--init-tok2vec F]
       [--out DIR] [--log FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def real_abstracts(n: int = 500) -> list[str]:
    """A fixed sample of real abstracts (ICLR 2018) to time the pipeline on."""
    with gzip.open(DATA / "paperlists" / "iclr2018.json.gz", "rt", encoding="utf-8") as fh:
        records = json.load(fh)
    return [r["abstract"] for r in records if r.get("abstract")][:n]


def words_per_second(model_dir: Path, texts: list[str]) -> float:
    """Words (tokens) per second of the whole loaded pipeline, tokenizer included, 1 process."""
    import spacy

    nlp = spacy.load(model_dir)
    list(nlp.pipe(texts[:20]))  # warm up
    started = time.perf_counter()
    words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=64))
    return words / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--vectors", type=Path)
    parser.add_argument("--tdmsci", action="store_true")
    parser.add_argument("--spancat", action="store_true")
    parser.add_argument("--init-tok2vec", type=Path)
    parser.add_argument("--width", type=int, default=96)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--window", type=int, default=1)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--patience", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--extra", default="{}", help="JSON dict of further config overrides")
    parser.add_argument("--out", type=Path, default=Path("/tmp/ner/runs"))
    parser.add_argument("--log", type=Path, default=Path("/tmp/ner/experiments.jsonl"))
    args = parser.parse_args()

    from kg.train.recogniser import TrainOptions, train_model

    options = TrainOptions(
        component="spancat" if args.spancat else "ner",
        vectors=args.vectors,
        tdmsci=DATA / "tdmsci" / "train_1500_v2.conll" if args.tdmsci else None,
        init_tok2vec=args.init_tok2vec,
        width=args.width,
        depth=args.depth,
        window=args.window,
        norm_rows=args.rows,
        dropout=args.dropout,
        learn_rate=args.lr,
        max_steps=args.steps,
        patience=args.patience,
        seed=args.seed,
        extra=json.loads(args.extra),
    )
    result = train_model(
        DATA / "scierc" / "train.json", DATA / "scierc" / "dev.json", args.out / args.name, options
    )
    wps = words_per_second(result.model_dir, real_abstracts())
    micro = result.dev.micro
    row = {
        "name": args.name,
        "argv": vars(args) | {"out": str(args.out), "log": str(args.log)},
        "dev_p": round(micro.precision, 4),
        "dev_r": round(micro.recall, 4),
        "dev_f": round(micro.f1, 4),
        "train_s": round(result.seconds),
        "size_mb": round(result.size_bytes / 2**20, 1),
        "words_per_s": round(wps),
    }
    row["argv"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in row["argv"].items()}
    with args.log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, sort_keys=True) + "\n")
    print(result.dev.table())
    print(json.dumps(row))


if __name__ == "__main__":
    main()
