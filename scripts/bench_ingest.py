"""Reading benchmark: peak memory of `read_papers` over synthetic JSON Lines of growing size.

    python scripts/bench_ingest.py [--sizes-mb 100 1000] [--dir /tmp] [--source arxiv]

For each size, writes a file of synthetic records in the shape of the arXiv metadata snapshot
(`--source arxiv`, JSON Lines in a `.json` file) or of OpenAlex works (`--source openalex`,
with `abstract_inverted_index`), then reads it in a fresh process that only counts the papers
(as a streaming consumer would) and prints the papers, seconds, records/s and that process's
peak RSS, once without and once with the duplicate-id index (`read_papers(deduplicate=...)`).
Reading is streaming when the peak RSS does not grow with the file; with the index, it grows
by one small entry per paper. The files are deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = ("model graph neural network training data learning attention transformer language "
         "diffusion benchmark task method performance results propose show improve state art "
         "large scale efficient robust representation optimization").split()  # fmt: skip


def _abstract(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(120, 220))) + "."


def _arxiv(i: int, rng: random.Random) -> dict[str, object]:
    return {
        "id": f"{2000 + i // 100_000:04d}.{i % 100_000:05d}",
        "submitter": "Ada Lovelace",
        "authors": "Ada Lovelace, Charles Babbage and Kurt G{\\\"o}del",
        "title": " ".join(rng.choice(WORDS) for _ in range(10)).title(),
        "comments": "12 pages", "journal-ref": None, "doi": None, "report-no": None,
        "categories": "cs.LG cs.CL", "license": None,
        "abstract": "  " + _abstract(rng) + "\n",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
        "update_date": "2008-11-13",
        "authors_parsed": [["Lovelace", "Ada", ""], ["Babbage", "Charles", ""]],
    }  # fmt: skip


def _openalex(i: int, rng: random.Random) -> dict[str, object]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(_abstract(rng).split()):
        index.setdefault(word, []).append(position)
    return {
        "id": f"https://openalex.org/W{i}", "title": "A title", "display_name": "A title",
        "publication_year": 2024, "doi": f"https://doi.org/10.1234/{i}",
        "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
        "keywords": [{"display_name": "Deep Learning", "score": 0.5}],
        "abstract_inverted_index": index,
    }  # fmt: skip


def write_file(path: Path, megabytes: int, source: str) -> int:
    """Write about `megabytes` MB of records; returns how many."""
    make = _arxiv if source == "arxiv" else _openalex
    rng = random.Random(0)
    target = megabytes * 1_000_000
    written = count = 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < target:
            line = json.dumps(make(count, rng)) + "\n"
            fh.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count


_CHILD = """
import resource, sys, time
from kg.ingest import IngestReport, read_papers
report = IngestReport()
start = time.perf_counter()
dedup = sys.argv[2] == "1"
n = sum(1 for _ in read_papers([sys.argv[1]], report=report, deduplicate=dedup))
seconds = time.perf_counter() - start
print(n, len(report.skipped), seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(path: Path, dedup: bool) -> tuple[int, int, float, float]:
    """(papers, skipped, seconds, peak RSS in MB) of reading `path` in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), "1" if dedup else "0"],
                         check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    return int(out[0]), int(out[1]), float(out[2]), int(out[3]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes-mb", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--source", choices=["arxiv", "openalex"], default="arxiv")
    args = parser.parse_args()
    print(f"{'size':>8} {'records':>9} {'dedup':>5} {'papers':>9} {'skipped':>7} "
          f"{'seconds':>8} {'rec/s':>7} {'peak RSS':>9}")  # fmt: skip
    for size in args.sizes_mb:
        path = args.dir / f"bench_ingest_{args.source}_{size}mb.json"
        try:
            records = write_file(path, size, args.source)
            file_mb = os.path.getsize(path) / 1e6
            for dedup in (False, True):
                papers, skipped, seconds, rss = measure(path, dedup)
                print(f"{file_mb:>6.0f}MB {records:>9,} {'yes' if dedup else 'no':>5} "
                      f"{papers:>9,} {skipped:>7} {seconds:>8.1f} {papers / seconds:>7,.0f} "
                      f"{rss:>7.0f}MB", flush=True)  # fmt: skip
        finally:
            path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
