"""Cross-validated extraction quality over the gold abstracts (`make eval`; kg.eval.cv).

    python scripts/cv_eval.py [--repeats N] [--ablation] [--errors] [--train-share S ...]
                               [--training [DIR]] [--gold-dir ../shared/data]

Prints candidate recall, then a table per decision setting: the rules alone and the learned
decisions (8 folds grouped by conference file), over all 139 gold abstracts and dev2 alone;
`mustPP`/`mustPR` are proposes precision and recall over the gold's `must` contributions
alone (a proposal of an `ok` one counts on neither side; `kg.eval.graph.Report`).
`--repeats N` runs the learned rows N times, each with another dealing of the conference
files into folds and another random state of the learners (seed 0 is the sorted dealing and
the shipped model's state), and prints their mean, then the standard deviation and range of
each figure, then each dealing's row (to compare two versions dealing by dealing): a change
to the decisions is real when it moves a figure by more than that.
`--train-share S [S ...]` adds a learning curve: the learned rows again, each outer fold's
model trained on the share S of its training papers alone (`kg.eval.cv.training_papers`,
nested: a larger share holds a smaller one's papers; the held-out fold is scored whole),
a row per share (the mean over `--repeats`, then its sd, range and dealings), then the
means side by side and each share's difference from the largest, dealing by dealing. It
says whether more annotated training abstracts would still raise the figures: a rise from
share to share larger than the spread between dealings says so, a flat curve says not.
`--ablation` adds the learned decisions with only the rules' verdicts as features, without
each family of feature groups, with the rules' verdicts and one family, with the other
number of acceptance stages (`kg.train.decisions.SECOND_STAGE`), with `proposes` decided
as before (trees alone, cut 0.5) and with the types decided by the trees alone, on
`--ablation-folds` (default 4) grouped folds to keep its cost down (about 2 min a row on 2
idle cores); `--errors` the ten most frequent remaining error kinds
(`kg.eval.cv.error_kinds`), summed over the repeats' out-of-fold predictions and divided by
their number, and the confusion table of the types (gold type down, predicted type across,
`kg.eval.cv.type_confusion`), per dealing likewise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from kg.eval.cv import (
    FIGURES,
    TRAINING_DIR,
    candidate_recall,
    confusion_rows,
    error_kinds,
    gold_examples,
    learned_decider,
    load_gold_sets,
    paired,
    parse_gold,
    rules_decider,
    score,
    scored_sets,
    spreads,
    type_confusion,
)
from kg.eval.graph import Report
from kg.extract.extractor import _default_gazetteer
from kg.extract.features import FEATURE_GROUPS, FEATURE_NAMES
from kg.train.decisions import SECOND_STAGE

ROOT = Path(__file__).resolve().parents[1]
# Families of feature groups the ablation drops one at a time.
ABLATION = {
    "sources (generators, gazetteer, recogniser)": ("generators", "gazetteer", "recogniser"),
    "type cues": ("type_cues",),
    "context (role patterns, verb, we/our)": ("context",),
    "contribution cues": ("contribution",),
    "position and background frequency": ("position", "background"),
    "boundaries, overlapping candidates and shape": ("boundaries", "overlaps", "shape"),
    "annotated span types (SciERC, TDMSci)": ("annotated",),
    "background type nouns ('the X task', 'the X benchmark')": ("type_nouns",),
    "annotated neighbour words and SciREX spans ('via X', 'for X')": ("context_types",),
    "annotators' term edges (SciERC, SciREX words)": ("termhood",),
    "the rules' verdicts": ("rules",),
}


class _Learners(TypedDict, total=False):
    """How an ablation row learns `proposes` and the types, where it differs from the shipped
    model (`learned_decider`'s keywords of the same names)."""

    proposes_learners: Sequence[str]
    learn_cut: bool
    type_learners: Sequence[str]


def _row(name: str, reports: dict[str, Report]) -> str:
    a, d = reports["all"], reports["dev2"]
    return (f"{name:<28} {a.must_recall:6.3f} {a.precision:6.3f} {a.f1:6.3f} "
            f"{a.type_accuracy:6.3f} {a.proposes_precision:6.3f} {a.proposes_recall:6.3f} "
            f"{a.proposes_must_precision:6.3f} {a.proposes_must_recall:6.3f} | "
            f"{d.must_recall:6.3f} {d.precision:6.3f} {d.type_accuracy:6.3f} "
            f"{d.proposes_recall:6.3f}")


def _mean_rows(name: str, runs: list[dict[str, Report]]) -> list[str]:
    """The mean row of repeated runs, then (for more than one) their sd and range rows."""
    if len(runs) == 1:
        return [_row(name, runs[0])]
    a, d = spreads(runs, "all"), spreads(runs, "dev2")
    dev2 = ("must_recall", "precision", "type_accuracy", "proposes_recall")
    rows = []
    for label, pick in ((f"{name} (mean of {len(runs)})", lambda x: f"{x.mean:6.3f}"),
                        ("  sd", lambda x: f"{x.sd:6.3f}"),
                        ("  range", lambda x: f"{x.high - x.low:6.3f}")):
        rows.append(f"{label:<28} " + " ".join(pick(a[n]) for n in FIGURES) + " | "
                    + " ".join(pick(d[n]) for n in dev2))
    # Each dealing's own row, so that two versions can be compared dealing by dealing.
    rows += [_row(f"  dealing {seed}", run) for seed, run in enumerate(runs)]
    return rows


def _print_curve(curve: dict[float, list[dict[str, Report]]]) -> None:
    """The learning curve's means, a row a share, then each share's difference from the
    largest share, paired dealing by dealing (mean and sd over the dealings)."""
    dev2 = ("must_recall", "precision", "type_accuracy", "proposes_recall")
    repeats = len(next(iter(curve.values())))
    print(f"\nlearning curve (learned on a share of each fold's training papers; mean of "
          f"{repeats} dealing{'s' * (repeats > 1)}):")
    for share, runs in curve.items():
        a, d = spreads(runs, "all"), spreads(runs, "dev2")
        print(f"{f'  learned on {share:.2f}':<28} "
              + " ".join(f"{a[n].mean:6.3f}" for n in FIGURES) + " | "
              + " ".join(f"{d[n].mean:6.3f}" for n in dev2))
    top = max(curve)
    if len(curve) < 2:
        return
    print(f"difference from learned on {top:.2f}, paired dealing by dealing (mean, sd):")
    for share, runs in curve.items():
        if share != top:
            a, d = paired(runs, curve[top], "all"), paired(runs, curve[top], "dev2")
            for label, pick in ((f"  {share:.2f} - {top:.2f}", lambda x: f"{x.mean:+6.3f}"),
                                ("    sd", lambda x: f"{x.sd:6.3f}")):
                print(f"{label:<28} " + " ".join(pick(a[n]) for n in FIGURES)
                      + " | " + " ".join(pick(d[n]) for n in dev2))


def _share(text: str) -> float:
    share = float(text)
    if not 0 < share <= 1:
        raise argparse.ArgumentTypeError(f"a share is in (0, 1], not {text}")
    return share


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", default=str(ROOT.parent / "shared/data"))
    parser.add_argument("--cache", default=str(ROOT / "build"))
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--ablation-folds", type=int, default=4)
    parser.add_argument("--no-main", action="store_true",
                        help="skip the rules/learned rows (with --ablation: the ablation alone)")
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--training", type=Path, nargs="?", const=TRAINING_DIR, default=None,
                        help="also train on the training-only annotated abstracts of this folder "
                             "(without a value: kg/train/annotated): they train every fold whose "
                             "test holds no paper of their conference file, and are never scored")
    parser.add_argument("--repeats", type=int, default=1,
                        help="seeds of the folds and learners for the learned rows")
    parser.add_argument("--train-share", type=_share, nargs="+", metavar="S",
                        help="learning curve: learned rows trained on these shares (0, 1] "
                        "of each fold's training papers (nested), the held-out fold whole; "
                        "does annotating more training abstracts still help?")
    args = parser.parse_args()
    seeds = range(max(args.repeats, 1))
    t0 = time.perf_counter()
    sets = load_gold_sets(Path(args.gold_dir), args.training)
    parsed = parse_gold(sets, Path(args.cache))
    lookup = _default_gazetteer().lookup
    found, total = candidate_recall(sets, parsed)
    scored = scored_sets(sets)
    extra = [s for s in sets if not s.scored]
    print(f"papers {sum(len(s.papers) for s in scored)}; groups (conference files) "
          f"{len({g for s in scored for g in s.groups.values()})}; training only: "
          + (", ".join(f"{s.name} ({len(s.papers)} abstracts)" for s in extra) or "none"))
    print(f"candidate recall (must concepts some candidate matches): {found / total:.3f} "
          f"({found}/{total})")
    print()
    print(f"{'':<28} {'all 139 abstracts':^55} | {'dev2 (120)':^27}")
    print(f"{'decisions':<28} {'mustR':>6} {'prec':>6} {'F1':>6} {'type':>6} {'propP':>6} "
          f"{'propR':>6} {'mustPP':>6} {'mustPR':>6} | {'mustR':>6} {'prec':>6} {'type':>6} "
          f"{'propR':>6}")
    runs: list[dict[str, Report]] = []
    examples = gold_examples(sets, parsed, lookup)
    if not args.no_main:
        rules = score(sets, parsed, rules_decider(parsed, lookup))
        print(_row("rules only", rules), flush=True)
        runs = [score(sets, parsed, learned_decider(sets, parsed, lookup, FEATURE_NAMES,
                                                    examples=examples, seed=seed), seed=seed)
                for seed in seeds]
        print("\n".join(_mean_rows("learned (all features)", runs)), flush=True)
    if args.train_share:
        curve = {}
        for share in sorted(set(args.train_share)):
            curve[share] = [score(sets, parsed, learned_decider(
                sets, parsed, lookup, FEATURE_NAMES, examples=examples, seed=seed,
                train_share=share), seed=seed) for seed in seeds]
            print("\n".join(_mean_rows(f"learned on {share:.2f}", curve[share])),
                  flush=True)
        _print_curve(curve)
    if args.ablation:
        k = args.ablation_folds
        print(f"ablation ({k} grouped folds):")
        # A row: its name, its features, two stages of acceptance or not, and the
        # learners it changes (an empty `_Learners`: the shipped ones).
        rows: list[tuple[str, Sequence[str], bool, _Learners]] = [
            ("learned, all features", FEATURE_NAMES, SECOND_STAGE, {}),
            ("learned, rules' verdicts only", FEATURE_GROUPS["rules"], SECOND_STAGE, {})]
        for family, groups in ABLATION.items():
            dropped = {n for g in groups for n in FEATURE_GROUPS[g]}
            rows.append((f"  without {family}", [n for n in FEATURE_NAMES if n not in dropped],
                         SECOND_STAGE, {}))
        for family, groups in ABLATION.items():
            if groups != ("rules",):
                added = [n for g in groups for n in FEATURE_GROUPS[g]]
                rows.append((f"  rules' verdicts + {family}",
                             [*FEATURE_GROUPS["rules"], *added], SECOND_STAGE, {}))
        rows += [(f"  {'one stage' if SECOND_STAGE else 'two stages'} of acceptance",
                  FEATURE_NAMES, not SECOND_STAGE, {}),
                 ("  proposes: trees, cut 0.5", FEATURE_NAMES, SECOND_STAGE,
                  {"proposes_learners": ("trees",), "learn_cut": False}),
                 ("  types: trees alone", FEATURE_NAMES, SECOND_STAGE,
                  {"type_learners": ("trees",)})]
        for name, names, stack, learners in rows:
            row_runs = [score(sets, parsed, learned_decider(sets, parsed, lookup, names,
                                                            examples=examples, stack=stack,
                                                            seed=seed, **learners),
                              k=k, seed=seed)
                        for seed in seeds]
            print("\n".join(_mean_rows(name, row_runs)), flush=True)
    if args.errors and runs:
        # Summed over the repeats' out-of-fold predictions, printed per repeat.
        kinds: Counter[str] = Counter()
        for run in runs:
            kinds.update(dict(error_kinds(sets, parsed, run, examples, top=None)))
        print(f"\nmost frequent remaining errors (learned, out of fold, all 139; "
              f"per dealing, mean of {len(runs)}):")
        for kind, count in kinds.most_common(10):
            print(f"  {count / len(runs):6.1f}  {kind}")
        print(f"\ntypes of the matched concepts (learned, out of fold, all 139; per dealing, "
              f"mean of {len(runs)}; off the diagonal: wrong):")
        print("\n".join("  " + row for row in confusion_rows(type_confusion(runs), len(runs))))
    print(f"\nseconds {time.perf_counter() - t0:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
