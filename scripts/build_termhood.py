"""Build where annotators draw a term's edges, word by word: kg/data/termhood.tsv.gz.

Sources (../shared/data/SOURCES.md): SciERC train + dev (Luan et al. 2018: 400 abstracts of
AI conferences; every scientific term annotated) and SciREX train (Jain et al. 2020: 306
full ML papers; every method, task, dataset and metric). Only counts are shipped, never
text. Each token is normalised as candidates are (`kg.normalize.norm_key`, which may split
it: "pre-trained" -> "pre trained"); per source and normalised word, how often it is the
first word of an annotated span ("start"), a later word of one ("inside"), its last word
("end"), the word just before a span and outside every span ("before"), and outside every
span ("outside", "before" included). SciERC's generic spans ("this approach") count as
outside: they are not terms. `kg.extract.termhood` turns the counts into features of a
candidate's first and last words.

Rebuild: python scripts/build_termhood.py ../shared/data kg/data
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from kg.eval.corpora import read_scierc
from kg.extract.count_tables import count_rows
from kg.extract.termhood import COLUMNS
from kg.normalize import norm_key
from kg.vocab.background import write_tsv_gz

# Words seen fewer times than this in a source are left out (they say little, cost room).
MIN_COUNT = 2

Doc = tuple[Sequence[str], set[int], Sequence[tuple[int, int]]]
"""A document's tokens, the indices starting its sentences, its term spans [start, end)."""


def count_words(docs: Iterable[Doc]) -> dict[str, Counter[str]]:
    """Per normalised word, its counts (`COLUMNS`) over the documents' tokens."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for words, sentence_starts, spans in docs:
        covering: list[tuple[int, int] | None] = [None] * len(words)
        starts = set()
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            starts.add(start)
            for i in range(start, end):
                if covering[i] is None:
                    covering[i] = (start, end)
        for i, token in enumerate(words):
            pieces = norm_key(token).split()
            span = covering[i]
            for j, word in enumerate(pieces):
                row = found[word]
                last_piece = j == len(pieces) - 1
                if span is None:
                    row["outside"] += 1
                    if last_piece and i + 1 in starts and i + 1 not in sentence_starts:
                        row["before"] += 1
                    continue
                row["start" if i == span[0] and j == 0 else "inside"] += 1
                if i == span[1] - 1 and last_piece:
                    row["end"] += 1
    return found


def scierc_docs(path: Path) -> Iterator[Doc]:
    """SciERC's documents (`kg.eval.corpora.read_scierc`), generic spans left out."""
    for doc in read_scierc(path):
        starts = {i for i, first in enumerate(doc.sent_starts) if first}
        yield doc.words, starts, [(e.start, e.end) for e in doc.entities
                                  if e.label != "Generic"]


def scirex_docs(lines: Iterable[str], name: str = "scirex") -> Iterator[Doc]:
    """SciREX's documents, one JSON document a line (`ner` spans' ends exclusive)."""
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            yield (doc["words"], {s for s, _ in doc["sentences"]},
                   [(int(s), int(e)) for s, e, _ in doc["ner"]])
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{name}: line {line_no}: not a SciREX document ({exc})") from exc


def table(sources: dict[str, dict[str, Counter[str]]]) -> dict[str, Counter[str]]:
    """The rows to ship: "<source>:<word>" for words seen `MIN_COUNT` times or more."""
    return {f"{source}:{word}": c for source, found in sources.items()
            for word, c in found.items() if c["start"] + c["inside"] + c["outside"] >= MIN_COUNT}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared", type=Path, help="../shared/data")
    parser.add_argument("out", type=Path, help="kg/data")
    args = parser.parse_args()
    scierc = count_words(d for name in ("train.json", "dev.json")
                         for d in scierc_docs(args.shared / "scierc" / name))
    path = args.shared / "scirex" / "train_from_browser_docs.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        scirex = count_words(scirex_docs(fh, str(path)))
    rows = table({"scierc": scierc, "scirex": scirex})
    write_tsv_gz(args.out / "termhood.tsv.gz", count_rows(rows, COLUMNS))
    print(f"words: scierc {len(scierc)}, scirex {len(scirex)}; {len(rows)} rows kept")


if __name__ == "__main__":
    main()
