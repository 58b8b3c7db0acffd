"""Build how annotated scientific abstracts type their spans: kg/data/span_types.tsv.gz.

Sources (../shared/data/SOURCES.md): SciERC train + dev (Luan et al. 2018: 400 abstracts of
AI conferences, six entity types) and TDMSci train (Hou et al. 2021: 1,500 sentences of NLP
papers; tasks, datasets, metrics). The test splits are not used (they are not here). Only
counts are shipped, never text: for each normalised span (`kg.normalize.norm_key`) and for
each last word of a multi-word span, how many annotated spans of each type it is. The
learned decisions read them as features of a candidate (`kg.extract.span_types`): "… parsing"
is mostly annotated as a task, "… corpus" as material, "approach"/"method" as generic.

Types as the project names them: Task, Method, Metric, Material -> Dataset,
OtherScientificTerm -> Concept, Generic -> generic (SciERC's "this approach", "our model").

Rebuild: python scripts/build_span_types.py ../shared/data kg/data
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from kg.eval.corpora import read_scierc
from kg.extract.count_tables import count_rows
from kg.extract.span_types import COLUMNS, SCIERC_TYPES
from kg.normalize import norm_key
from kg.vocab.background import write_tsv_gz

TDMSCI = {"TASK": "Task", "DATASET": "Dataset", "METRIC": "Metric"}


def scierc_spans(path: Path) -> Iterator[tuple[str, str]]:
    """(span text, project type) of every entity of a SciERC JSON-lines file."""
    for doc in read_scierc(path):
        for e in doc.entities:
            yield " ".join(doc.words[e.start:e.end]), SCIERC_TYPES[e.label]


def tdmsci_spans(path: Path) -> Iterator[tuple[str, str]]:
    """(span text, project type) of every BIO-tagged entity of a TDMSci CoNLL file."""
    words: list[str] = []
    label = ""

    def flush() -> Iterator[tuple[str, str]]:
        if words:
            yield " ".join(words), TDMSCI[label]

    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split("\t")
        tag = parts[-1] if len(parts) >= 3 else "O"
        if tag.startswith("I-") and words and tag[2:] == label:
            words.append(parts[0])
            continue
        yield from flush()
        words = []
        if tag.startswith(("B-", "I-")):
            if tag[2:] not in TDMSCI:
                raise SystemExit(f"{path}: line {line_no}: unknown tag {tag!r}")
            words, label = [parts[0]], tag[2:]
    yield from flush()


def tables(spans: Iterator[tuple[str, str]]) -> dict[str, Counter[str]]:
    """"p:" + span key and "h:" + last word of multi-word spans -> type counts."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for text, ctype in spans:
        key = norm_key(text)
        if not key:
            continue
        out["p:" + key][ctype] += 1
        words = key.split()
        if len(words) > 1:
            out["h:" + words[-1]][ctype] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared", type=Path, help="../shared/data")
    parser.add_argument("out", type=Path, help="kg/data")
    args = parser.parse_args()

    def spans() -> Iterator[tuple[str, str]]:
        for name in ("train.json", "dev.json"):
            yield from scierc_spans(args.shared / "scierc" / name)
        yield from tdmsci_spans(args.shared / "tdmsci" / "train_1500_v2.conll")

    found = tables(spans())
    write_tsv_gz(args.out / "span_types.tsv.gz", count_rows(found, COLUMNS))
    print(f"{len(found)} keys ({sum(k.startswith('p:') for k in found)} spans, "
          f"{sum(k.startswith('h:') for k in found)} last words)")


if __name__ == "__main__":
    main()
