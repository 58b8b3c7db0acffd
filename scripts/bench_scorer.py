"""Benchmark the tree evaluation of the shipped decisions model: QuickScorer (`_Scorer`)
against the level-by-level walk (`TreeEnsemble.raw_by_levels`), same rows, same results.

    nice -n 10 python scripts/bench_scorer.py            # 40,000 rows (colm2025's groups)
    nice -n 10 python scripts/bench_scorer.py -n 100000 --missing 0.05

The rows are synthetic: each feature drawn from the thresholds the model splits that feature
at (give or take a hair), so every split goes either way as on real candidates; `--missing`
makes a share of the values NaN. Figures are wall-clock seconds of one run per ensemble.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kg.extract.learned import DecisionModel, TreeEnsemble


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=40_000, help="rows (default 40,000)")
    parser.add_argument("--missing", type=float, default=0.0, help="share of NaN values")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    model = DecisionModel.load()
    total = {"quickscorer": 0.0, "walk": 0.0}
    print(f"{'ensemble':>8} {'trees':>6} {'splits':>7} {'tests':>6} "
          f"{'quickscorer s':>14} {'walk s':>8}")
    for i, ensemble in enumerate(model.ensembles):
        if not isinstance(ensemble, TreeEnsemble) or ensemble.scorer is None:
            continue
        splits = ~ensemble.leaf
        x = np.zeros((args.n, 1 + int(ensemble.feature[splits].max())))
        for column in range(x.shape[1]):
            at = ensemble.threshold[splits & (ensemble.feature == column)]
            if len(at):
                x[:, column] = rng.choice(at, args.n) + rng.choice([-1e-9, 0.0, 1e-9], args.n)
        x[rng.random(x.shape) < args.missing] = np.nan
        start = time.perf_counter()
        fast = ensemble.raw(x)
        middle = time.perf_counter()
        walked = ensemble.raw_by_levels(x)
        end = time.perf_counter()
        if not np.array_equal(fast, walked):
            raise SystemExit(f"ensemble {i}: QuickScorer and the walk disagree")
        total["quickscorer"] += middle - start
        total["walk"] += end - middle
        print(f"{i:>8} {len(ensemble.roots):>6} {int(splits.sum()):>7} "
              f"{len(ensemble.scorer.threshold):>6} {middle - start:>14.3f} {end - middle:>8.3f}")
    ratio = total["walk"] / total["quickscorer"]
    print(f"{'all':>8} {'':>6} {'':>7} {'':>6} {total['quickscorer']:>14.3f} "
          f"{total['walk']:>8.3f}  (walk / quickscorer {ratio:.1f}x)")


if __name__ == "__main__":
    main()
