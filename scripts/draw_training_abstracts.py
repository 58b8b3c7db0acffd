"""Draw abstracts to annotate as training data (kg/train/annotated; issue 16).

    python scripts/draw_training_abstracts.py NAME [--per-file 4] [--min-chars 400]
        [--files acl2022 naacl2024 ...] [--shared ../shared/data] [-o kg/train/annotated]

From each conference file of `../shared/data/paperlists/` (by default dev2's fifteen: papers
of the same conference files as the gold abstracts, so that the hidden test papers of other
venues and years stay out of training), the abstracts of at least `--min-chars` characters
that are not gold papers (by id and by title), sorted by id, shuffled by `NAME-<file>`, the
first `--per-file`; written as `NAME_papers.json` for annotating into `NAME_gold.json`
(`../shared/data/gold/GUIDELINES.md`). The same arguments draw the same papers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEV2_FILES = ("acl2022", "naacl2024", "cvpr2019", "eccv2022", "iclr2018", "icml2019",
              "nips2018", "ijcai2024", "uai2024", "aaai2022", "colt2024", "corl2024", "3dv2025",
              "alt2025", "automl2024")


def record_id(record: dict[str, Any]) -> str:
    """The record's id; CVPR 2019's records have none, their CVF paper id (`pid`) stands in."""
    return str(record.get("id") or record.get("pid") or record["title"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--per-file", type=int, default=4)
    parser.add_argument("--min-chars", type=int, default=400)
    parser.add_argument("--files", nargs="+", default=list(DEV2_FILES))
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "kg/train/annotated")
    args = parser.parse_args()
    gold = json.loads((args.shared / "gold/dev2_papers.json").read_text(encoding="utf-8"))
    gold_ids = {str(p["id"]) for p in gold if p.get("id")}
    gold_titles = {p["title"].strip().lower() for p in gold}
    drawn = []
    for name in args.files:
        with gzip.open(args.shared / "paperlists" / f"{name}.json.gz", "rt",
                       encoding="utf-8") as handle:
            records = json.load(handle)
        kept = sorted((r for r in records if len(r.get("abstract") or "") >= args.min_chars
                       and record_id(r) not in gold_ids
                       and r["title"].strip().lower() not in gold_titles), key=record_id)
        random.Random(f"{args.name}-{name}").shuffle(kept)
        drawn += [{"id": record_id(r), "title": r["title"], "abstract": r["abstract"],
                   "venue": name} for r in kept[:args.per_file]]
    out = args.output / f"{args.name}_papers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(drawn, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"{len(drawn)} abstracts -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
