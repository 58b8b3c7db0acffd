"""Cross-validated extraction quality over the gold abstracts (`make eval`; kg.eval.cv).

    python scripts/cv_eval.py [--ablation] [--errors] [--gold-dir ../shared/data]

Prints candidate recall, then a table per decision setting: the rules alone and the learned
decisions (leave-one-conference-file-out), over all 139 gold abstracts and dev2 alone.
`--ablation` adds the learned decisions without each feature group and with only the rules'
verdicts; `--errors` the ten most frequent remaining error kinds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kg.eval.cv import (
    candidate_recall,
    error_kinds,
    learned_decider,
    load_gold_sets,
    parse_gold,
    rules_decider,
    score,
)
from kg.eval.graph import Report
from kg.extract.extractor import _default_gazetteer
from kg.extract.features import FEATURE_GROUPS, FEATURE_NAMES

ROOT = Path(__file__).resolve().parents[1]


def _row(name: str, reports: dict[str, Report]) -> str:
    a, d = reports["all"], reports["dev2"]
    return (f"{name:<28} {a.must_recall:6.3f} {a.precision:6.3f} {a.f1:6.3f} "
            f"{a.type_accuracy:6.3f} {a.proposes_precision:6.3f} {a.proposes_recall:6.3f} | "
            f"{d.must_recall:6.3f} {d.precision:6.3f} {d.type_accuracy:6.3f} "
            f"{d.proposes_recall:6.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", default=str(ROOT.parent / "shared/data"))
    parser.add_argument("--cache", default=str(ROOT / "build"))
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    t0 = time.perf_counter()
    sets = load_gold_sets(Path(args.gold_dir))
    parsed = parse_gold(sets, Path(args.cache))
    lookup = _default_gazetteer().lookup
    found, total = candidate_recall(sets, parsed)
    print(f"papers {sum(len(s.papers) for s in sets)}; groups (conference files) "
          f"{len({g for s in sets for g in s.groups.values()})}")
    print(f"candidate recall (must concepts some candidate matches): {found / total:.3f} "
          f"({found}/{total})")
    print()
    print(f"{'':<28} {'all 139 abstracts':^41} | {'dev2 (120)':^27}")
    print(f"{'decisions':<28} {'mustR':>6} {'prec':>6} {'F1':>6} {'type':>6} {'propP':>6} "
          f"{'propR':>6} | {'mustR':>6} {'prec':>6} {'type':>6} {'propR':>6}")
    rules = score(sets, parsed, rules_decider(parsed, lookup))
    print(_row("rules only", rules), flush=True)
    learned = score(sets, parsed, learned_decider(sets, parsed, lookup, FEATURE_NAMES))
    print(_row("learned (all features)", learned), flush=True)
    if args.ablation:
        only_rules = FEATURE_GROUPS["rules"]
        print(_row("learned, rules' verdicts only",
                   score(sets, parsed, learned_decider(sets, parsed, lookup, only_rules))),
              flush=True)
        for group, names in FEATURE_GROUPS.items():
            kept = [n for n in FEATURE_NAMES if n not in names]
            print(_row(f"learned without {group}",
                       score(sets, parsed, learned_decider(sets, parsed, lookup, kept))),
                  flush=True)
    if args.errors:
        print("\nmost frequent remaining errors (learned, all 139):")
        for kind, count in error_kinds(learned["all"]):
            print(f"  {count:4d}  {kind}")
    print(f"\nseconds {time.perf_counter() - t0:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
