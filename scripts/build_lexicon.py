"""Build kg/data/lexicon.tsv.gz: word document frequencies over real ML abstracts.

Source: the 35,108 paper records of ../shared/data/paperlists/ (titles and abstracts of 69
conference years; see ../shared/data/SOURCES.md). Only counts are shipped, never text.

The extractor uses it to repair PDF line-break hyphenation ("pro- pose" -> "propose",
"multi- view" -> "multi-view") and to tell generic words (very high document frequency) from
terms. Rebuild with:  python scripts/build_lexicon.py ../shared/data/paperlists kg/data/lexicon.tsv.gz
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
from collections import Counter
from pathlib import Path

WORD = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*")
MIN_DF = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paperlists", type=Path)
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    df: Counter[str] = Counter()
    docs = 0
    for path in sorted(args.paperlists.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for record in json.load(fh):
                text = f"{record.get('title') or ''} {record.get('abstract') or ''}"
                words = {w.lower() for w in WORD.findall(text)}
                # A hyphenated word also counts for its parts and its closed-up form.
                for w in list(words):
                    if "-" in w:
                        words.update(w.split("-"))
                docs += 1
                df.update(words)
    rows = sorted((w, n) for w, n in df.items() if n >= MIN_DF)
    buf = io.StringIO()
    buf.write(f"#docs\t{docs}\n")
    for word, n in rows:
        buf.write(f"{word}\t{n}\n")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "wb") as raw, gzip.GzipFile(
        filename="", mode="wb", fileobj=raw, mtime=0
    ) as gz:
        gz.write(buf.getvalue().encode("utf-8"))
    print(f"{docs} documents, {len(rows)} words with df >= {MIN_DF} -> {args.output}")


if __name__ == "__main__":
    main()
