"""How many papers of a corpus introduce the same name? The data behind `kg.canon.origin.N`.

A paper whose title starts with a name and a colon ("CRAFT: ...") introduces that name. Over
a corpus (default: every paperlists file), count the papers per introduced name (case folded)
and print the distribution: the largest count that still covers 99% of the names is how many
papers can genuinely introduce one name (re-used names, a paper and its extended version);
more "proposers" than that means the role is claimed by papers that only use the concept.

    python scripts/origin_threshold.py ../shared/data/paperlists
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from kg.ingest import IngestReport, read_papers

_TITLE_NAME = re.compile(r"^\s*([A-Z][\w\-+.]*(?:\s[\w\-+.]+){0,2}?)\s*:\s")


def main(folder: str) -> None:
    files = sorted(str(p) for p in Path(folder).glob("*.json*"))
    names: Counter[str] = Counter()
    for paper in read_papers(files, report=IngestReport()):
        match = _TITLE_NAME.match(paper.title or "")
        if match:
            names[match.group(1).casefold()] += 1
    sizes = Counter(names.values())
    total = sum(sizes.values())
    print(f"papers naming their contribution in the title: {sum(names.values())}")
    print(f"distinct names: {total}")
    covered = 0
    for size in sorted(sizes):
        covered += sizes[size]
        print(f"introduced by {size:3d} papers: {sizes[size]:6d} names, "
              f"cumulative {covered / total:.4f}")
    print("most re-used:", names.most_common(15))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/paperlists")
