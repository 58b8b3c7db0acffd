"""How many papers of a corpus introduce the same name? The data behind `kg.canon.origin.N`.

A paper whose title starts with a name and a colon ("CRAFT: ...") introduces that name. Over
a corpus (default: every paperlists file), count the papers per introduced name (case folded)
and print the distribution: the largest count that still covers 99% of the names is how many
papers can genuinely introduce one name (re-used names, a paper and its extended version);
more "proposers" than that means the role is claimed by papers that only use the concept.

A second table: of the papers that are the introducing paper of a Papers-with-Code method
(`kg.vocab.origins`: same title or arXiv id), the paper's year minus the year of the method's
preprint — how much later than its arXiv version a paper appears (the margin of
`kg.canon.origin.PREPRINT_YEARS`).

    python scripts/origin_threshold.py ../shared/data/paperlists
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from kg.ingest import IngestReport, read_papers
from kg.types import Paper
from kg.vocab.origins import Origins, title_key

_TITLE_NAME = re.compile(r"^\s*([A-Z][\w\-+.]*(?:\s[\w\-+.]+){0,2}?)\s*:\s")


def main(folder: str) -> None:
    files = sorted(str(p) for p in Path(folder).glob("*.json*"))
    names: Counter[str] = Counter()
    papers = list(read_papers(files, report=IngestReport()))
    for paper in papers:
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
    preprint_gap(papers)


def preprint_gap(papers: list[Paper]) -> None:
    """Paper year - preprint year over the papers that introduced a vocabulary method."""
    by_title: dict[str, set[tuple[str, int]]] = {}
    for origins in Origins.load().by_key.values():
        for origin in origins:
            if origin.year is not None:
                by_title.setdefault(title_key(origin.title), set()).add(
                    (origin.source_id, origin.year))
    gaps: Counter[int] = Counter()
    seen: set[str] = set()
    for paper in papers:
        key = title_key(paper.title or "")
        if paper.year is None or key not in by_title or key in seen:
            continue
        seen.add(key)
        gaps.update(paper.year - year for _, year in by_title[key])
    total = sum(gaps.values())
    print(f"papers that introduced a vocabulary method: {len(seen)} ({total} dated methods)")
    for gap in sorted(gaps):
        print(f"paper year - preprint year = {gap:2d}: {gaps[gap]:4d} ({gaps[gap] / total:.3f})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/paperlists")
