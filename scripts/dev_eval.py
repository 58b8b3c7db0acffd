"""Developer loop: build the sample corpus in memory and score it against the gold (no RDF).

    python scripts/dev_eval.py [--details] [--no-gazetteer] [--no-entity-model] [--rules-only]

The sample papers train the learned decisions: these figures are a development check, not a
quality figure (that is `make eval`, cross-validated).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kg.build import build_corpus
from kg.eval.graph import evaluate, load_gold, predictions_from_corpus
from kg.extract import ExtractorConfig
from kg.ingest import read_papers

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT / "examples/iclr2025_abstracts.txt"))
    parser.add_argument("--gold", default=str(ROOT.parent / "shared/data/gold/iclr2025_gold.json"))
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--no-gazetteer", action="store_true")
    parser.add_argument("--no-entity-model", action="store_true")
    parser.add_argument("--rules-only", action="store_true",
                        help="decide by the hand-written rules, not the learned model")
    args = parser.parse_args()
    t0 = time.perf_counter()
    corpus = build_corpus(read_papers([args.corpus]), n_process=1,
                          config=ExtractorConfig(gazetteer=not args.no_gazetteer,
                                                 entity_model=not args.no_entity_model,
                                                 learned=not args.rules_only))
    abstracts, preds = predictions_from_corpus(corpus)
    report = evaluate(load_gold(args.gold), abstracts, preds)
    print(report.summary())
    print(f"seconds  {time.perf_counter() - t0:.1f}")
    if args.details:
        print(report.details())
    return 0


if __name__ == "__main__":
    sys.exit(main())
