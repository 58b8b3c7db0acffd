"""Build the background statistics the extractor uses, from 35k real ML abstracts.

Source: the 35,108 paper records of ../shared/data/paperlists/ (titles and abstracts of 69
conference years; see ../shared/data/SOURCES.md). Only counts are shipped, never text:

- kg/data/lexicon.tsv.gz — word -> number of abstracts containing it. Repairs PDF line-break
  hyphenation ("pro- pose" -> "propose", "multi- view" -> "multi-view") and tells rare,
  specific words from common ones.
- kg/data/phrases.tsv.gz — normalised 2-4-word phrase (kg.normalize.norm_key) -> number of
  abstracts containing it, for phrases in at least 3. A noun phrase that many papers use
  ("instruction tuning", "KV cache") is an established term; one no other paper uses
  ("parameter sign") is a one-off description (termhood, as in C-value/NC-value term
  extraction, Frantzi et al. 2000).

The gold papers (`--exclude`: paper files in any `kg.ingest` format, left out by title) are
not counted, so that the cross-validated figures never see a gold abstract's own words in
the background counts (a word only that paper uses would count 1 instead of 0, as it does
for any paper a user builds).

Rebuild: python scripts/build_lexicon.py ../shared/data/paperlists kg/data \
    --exclude ../shared/data/gold/dev2_papers.json ../shared/data/iclr2025_abstracts.txt
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

from kg.ingest import read_papers
from kg.normalize import norm_key
from kg.vocab.background import CLAUSE, EDGE_STOP, TOKEN, write_tsv_gz
from kg.vocab.origins import title_key

WORD = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*")
MIN_WORD_DF = 3
MIN_PHRASE_DF = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paperlists", type=Path)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--exclude", nargs="*", type=Path, default=[])
    args = parser.parse_args()
    excluded = {title_key(p.title or "") for p in read_papers(args.exclude)} - {""}
    skipped = 0
    words_df: Counter[str] = Counter()
    phrases_df: Counter[str] = Counter()
    key_cache: dict[str, str] = {}
    docs = 0
    for path in sorted(args.paperlists.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            records = json.load(fh)
        for record in records:
            if title_key(record.get("title") or "") in excluded:
                skipped += 1
                continue
            text = f"{record.get('title') or ''}. {record.get('abstract') or ''}"
            words = {w.lower() for w in WORD.findall(text)}
            for w in list(words):
                if "-" in w:
                    words.update(w.split("-"))
            words_df.update(words)
            phrases: set[str] = set()
            for clause in CLAUSE.split(text):
                low = [t.lower() for t in TOKEN.findall(clause)]
                for size in (2, 3, 4):
                    for i in range(len(low) - size + 1):
                        gram = low[i : i + size]
                        if gram[0] in EDGE_STOP or gram[-1] in EDGE_STOP:
                            continue
                        joined = " ".join(gram)
                        key = key_cache.get(joined)
                        if key is None:
                            key = key_cache[joined] = norm_key(joined)
                        phrases.add(key)
            phrases_df.update(phrases)
            docs += 1
        key_cache.clear()
    args.outdir.mkdir(parents=True, exist_ok=True)
    word_rows = sorted((w, n) for w, n in words_df.items() if n >= MIN_WORD_DF)
    phrase_rows = sorted((p, n) for p, n in phrases_df.items() if n >= MIN_PHRASE_DF)
    for name, rows in (("lexicon.tsv.gz", word_rows), ("phrases.tsv.gz", phrase_rows)):
        write_tsv_gz(args.outdir / name, [f"#docs\t{docs}", *(f"{k}\t{n}" for k, n in rows)])
    print(f"{docs} abstracts ({skipped} excluded): {len(word_rows)} words (df >= {MIN_WORD_DF}), "
          f"{len(phrase_rows)} phrases (df >= {MIN_PHRASE_DF}) -> {args.outdir}")


if __name__ == "__main__":
    main()
