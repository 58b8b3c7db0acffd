"""Train the learned extraction decisions on every gold abstract (`make train-decisions`).

    python scripts/train_decisions.py [--gold-dir ../shared/data] [-o kg/data/decisions.json.gz]
        [--training [DIR]]

Writes the model `kg build` ships (kg.extract.learned). Its quality figures are the
cross-validated ones of `make eval` (scripts/cv_eval.py), never measured on these papers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kg.eval.cv import TRAINING_DIR, gold_examples, load_gold_sets, must_counts, parse_gold
from kg.extract.extractor import _default_gazetteer
from kg.extract.features import FEATURE_NAMES
from kg.train.decisions import train, write_model

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", default=str(ROOT.parent / "shared/data"))
    parser.add_argument("--cache", default=str(ROOT / "build"))
    parser.add_argument("--training", type=Path, nargs="?", const=TRAINING_DIR, default=None,
                        help="also train on the training-only annotated abstracts of this folder "
                             "(without a value: kg/train/annotated)")
    parser.add_argument("-o", "--output", default=str(ROOT / "kg/data/decisions.json.gz"))
    args = parser.parse_args()
    sets = load_gold_sets(Path(args.gold_dir), args.training)
    parsed = parse_gold(sets, Path(args.cache))
    lookup = _default_gazetteer().lookup
    examples = [e for per_paper in gold_examples(sets, parsed, lookup).values()
                for e in per_paper]
    names = " + ".join(f"{s.name} ({len(s.papers)} abstracts)" for s in sets)
    model = train(examples, FEATURE_NAMES, trained_on=names, must_counts=must_counts(sets))
    write_model(model, args.output)
    print(f"trained on {names}: {len(examples)} candidate groups -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
