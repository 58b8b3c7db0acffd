"""Build how annotated papers type a span by the words around it: kg/data/context_types.tsv.gz.

Sources (../shared/data/SOURCES.md): SciERC train + dev (Luan et al. 2018: 400 abstracts,
six entity types) and SciREX train (Jain et al. 2020: 306 full ML papers, 108k mentions of
methods, tasks, datasets and metrics). Only counts are shipped, never text. For every
annotated span, the word just before it and the word just after it in its sentence
(lower-cased; "<s>" / "</s>" at a sentence's edge) count one of its type: "via X", "using
X", "with X" are mostly methods, "for X" tasks, "on X" datasets, "X of" concepts. SciREX
also gives, per normalised span, its mentions of each type (`kg.extract.context_types`). And for
every word among the `WINDOW` words before (after) a span in its sentence, once per span and
side, one of its type; with every span of the source counted once. The learned type models read
these as features.

Keys: "<source>:prev:<word>", "<source>:next:<word>" (source scierc or scirex),
"scirex:span:<norm_key>", "<source>:win_prev:<word>", "<source>:win_next:<word>" (a window
word near fewer than `MIN_WINDOW_SPANS` spans of its source is left out: it would say next to
nothing against `WINDOW_PRIOR`) and "<source>:win:all".
Types as `scripts/build_span_types.py` names them (Material -> Dataset,
OtherScientificTerm -> Concept, Generic -> generic).

Rebuild: python scripts/build_context_types.py ../shared/data kg/data
"""

from __future__ import annotations

import argparse
import bisect
import gzip
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from kg.eval.corpora import read_scierc
from kg.extract.context_types import END, START, WINDOW, WINDOW_TOTAL, Window
from kg.extract.count_tables import count_rows
from kg.extract.span_types import COLUMNS, SCIERC_TYPES
from kg.normalize import norm_key
from kg.vocab.background import write_tsv_gz

Mention = tuple[str, str, str, str]
"""(word before, span text, word after, project type) of one annotated span."""
Windowed = tuple[tuple[str, ...], tuple[str, ...], str]
"""(words before, words after, project type) of one annotated span (`in_window`)."""
MIN_WINDOW_SPANS = 3


def in_sentence(words: Sequence[str], start: int, end: int, sent_start: int,
                sent_end: int, ctype: str) -> Mention:
    """The mention of words[start:end] (end exclusive) inside the sentence
    words[sent_start:sent_end]."""
    before = words[start - 1].lower() if start > sent_start else START
    after = words[end].lower() if end < sent_end else END
    return before, " ".join(words[start:end]), after, ctype


def in_window(words: Sequence[str], start: int, end: int, sent_start: int, sent_end: int,
              ctype: str) -> Windowed:
    """The `WINDOW` words before and after words[start:end] inside the sentence
    words[sent_start:sent_end] (lower-cased), with the span's type."""
    window: Window = (tuple(w.lower() for w in words[max(sent_start, start - WINDOW):start]),
                      tuple(w.lower() for w in words[end:min(sent_end, end + WINDOW)]))
    return (*window, ctype)


def scierc_mentions(path: Path, make: Callable[..., Any] = in_sentence) -> Iterator[Any]:
    """Every entity of a SciERC JSON-lines file (`kg.eval.corpora.read_scierc`), as `make`
    (`in_sentence` or `in_window`) gives it."""
    for doc in read_scierc(path):
        starts = [i for i, first in enumerate(doc.sent_starts) if first]
        bounds = list(zip(starts, [*starts[1:], len(doc.words)], strict=True))
        for e in doc.entities:
            s, end = bounds[bisect.bisect_right(starts, e.start) - 1]
            yield make(doc.words, e.start, e.end, s, end, SCIERC_TYPES[e.label])


def scirex_mentions(lines: Iterable[str], name: str = "scirex",
                    make: Callable[..., Any] = in_sentence) -> Iterator[Any]:
    """Every mention of SciREX documents, one JSON document a line (spans' ends exclusive;
    `sentences` are [start, end) word ranges), as `make` gives it."""
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            words, sentences = doc["words"], doc["sentences"]
            starts = [s for s, _ in sentences]
            for start, end, label in doc["ner"]:
                s, e = sentences[max(bisect.bisect_right(starts, start) - 1, 0)]
                yield make(words, start, end, s, e, SCIERC_TYPES[label])
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise SystemExit(f"{name}: line {line_no}: not a SciREX document ({exc})") from exc


def tables(mentions: Iterable[tuple[str, Mention]]) -> dict[str, Counter[str]]:
    """(source, mention) pairs -> the count table: the words around the spans of each
    source, and SciREX's spans."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for source, (before, text, after, ctype) in mentions:
        out[f"{source}:prev:{before}"][ctype] += 1
        out[f"{source}:next:{after}"][ctype] += 1
        key = norm_key(text)
        if source == "scirex" and key:
            out[f"scirex:span:{key}"][ctype] += 1
    return out


def window_tables(windows: Iterable[tuple[str, Windowed]]) -> dict[str, Counter[str]]:
    """(source, windowed span) pairs -> the window rows of the count table."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for source, (before, after, ctype) in windows:
        out[f"{source}:win:{WINDOW_TOTAL}"][ctype] += 1
        for side, words in (("win_prev", before), ("win_next", after)):
            for word in set(words):
                out[f"{source}:{side}:{word}"][ctype] += 1
    return {key: counts for key, counts in out.items()
            if key.endswith(f":win:{WINDOW_TOTAL}") or sum(counts.values()) >= MIN_WINDOW_SPANS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared", type=Path, help="../shared/data")
    parser.add_argument("out", type=Path, help="kg/data")
    args = parser.parse_args()

    def mentions(make: Callable[..., Any] = in_sentence) -> Iterator[tuple[str, Any]]:
        for name in ("train.json", "dev.json"):
            for m in scierc_mentions(args.shared / "scierc" / name, make):
                yield "scierc", m
        path = args.shared / "scirex" / "train_from_browser_docs.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for m in scirex_mentions(fh, str(path), make):
                yield "scirex", m

    found = tables(mentions())
    found.update(window_tables(mentions(in_window)))
    write_tsv_gz(args.out / "context_types.tsv.gz", count_rows(found, COLUMNS))
    kinds = Counter(key.split(":", 2)[0] + ":" + key.split(":", 2)[1] for key in found)
    print(f"{len(found)} keys ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})")


if __name__ == "__main__":
    main()
