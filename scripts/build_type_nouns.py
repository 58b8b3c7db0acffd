"""Build kg/data/type_nouns.tsv.gz: how the 35k background abstracts name each phrase's kind.

Writers say what a term is by the noun they put after it or the noun it completes: "the
summarization task", "the task of summarization", "on the FooBench benchmark", "a FooNet
model", "the BLEU metric". For every 1-4-word phrase (kg.normalize.norm_key; no stop word at
its edges) this counts the abstracts of ../shared/data/paperlists/ in which it stands before
a noun of each kind (task/problem; dataset/benchmark/corpus; model/network/architecture;
method/algorithm/approach/technique/framework; metric/measure/score) or after "task of" /
"problem of"; phrases seen so in at least `MIN_DF` abstracts are kept. Only counts are
shipped, never text. The learned decisions read them as type evidence from other papers
(`kg.extract.type_nouns`, feature group `type_nouns`).

`--exclude` takes paper files (any `kg.ingest` format) whose papers are left out by title: the
gold abstracts, so the cross-validated figures never read a gold paper's own wording
through this table.

    python scripts/build_type_nouns.py ../shared/data/paperlists kg/data/type_nouns.tsv.gz \
        --exclude ../shared/data/gold/dev2_papers.json ../shared/data/iclr2025_abstracts.txt
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

from kg.ingest import read_papers
from kg.normalize import norm_key
from kg.vocab.background import CLAUSE, TOKEN, write_tsv_gz
from kg.vocab.background import EDGE_STOP as BACKGROUND_STOP
from kg.vocab.origins import title_key

KINDS = ("Task", "Dataset", "Model", "Method", "Metric")
NOUNS = {
    **dict.fromkeys(("task", "tasks", "problem", "problems"), "Task"),
    **dict.fromkeys(("dataset", "datasets", "benchmark", "benchmarks", "corpus", "corpora"),
                    "Dataset"),
    **dict.fromkeys(("model", "models", "network", "networks", "architecture",
                     "architectures"), "Model"),
    **dict.fromkeys(("method", "methods", "algorithm", "algorithms", "approach",
                     "approaches", "technique", "techniques", "framework", "frameworks"),
                    "Method"),
    **dict.fromkeys(("metric", "metrics", "measure", "measures", "score", "scores"), "Metric"),
}
OF_NOUNS = frozenset({"task", "tasks", "problem", "problems"})
# Beyond the background tables' phrase edges, words that do not name a kind's term either.
EDGE_STOP = BACKGROUND_STOP | frozenset(
    "proposed existing different various other several many multiple two three same standard"
    .split()
)
MAX_WORDS = 4
MIN_DF = 2


def _phrases(words: list[str]) -> list[str]:
    """The norm keys of the 1-`MAX_WORDS`-word runs ending at the end of `words` (no stop
    word in them but an inner "of": "bag of words")."""
    out = []
    for n in range(1, min(MAX_WORDS, len(words)) + 1):
        run = words[-n:]
        if run[0].lower() in EDGE_STOP or run[-1].lower() in EDGE_STOP or any(
                w.lower() in EDGE_STOP and w.lower() != "of" for w in run):
            continue
        if any(w.lower() in NOUNS for w in run):
            continue
        key = norm_key(" ".join(run))
        if key:
            out.append(key)
    return out


def abstract_kinds(text: str) -> dict[str, set[str]]:
    """Phrase key -> the kinds of noun it stands before (or after "task of") in `text`.

    >>> sorted(abstract_kinds("We study the task of verse scansion on the QuillBench "
    ...                       "benchmark.").items())
    [('quillbench', {'Dataset'}), ('verse', {'Task'}), ('verse scansion', {'Task'})]
    """
    found: dict[str, set[str]] = defaultdict(set)
    for clause in CLAUSE.split(text):
        words = TOKEN.findall(clause)
        for i, word in enumerate(words):
            kind = NOUNS.get(word.lower())
            if kind is None:
                continue
            for key in _phrases(words[:i]):
                found[key].add(kind)
            if word.lower() in OF_NOUNS and i + 1 < len(words) and words[i + 1].lower() == "of":
                rest = words[i + 2:i + 2 + MAX_WORDS]
                for n in range(1, len(rest) + 1):
                    for key in _phrases(rest[:n]):
                        if len(key.split()) == n:
                            found[key].add("Task")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paperlists", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--exclude", nargs="*", type=Path, default=[])
    args = parser.parse_args()
    excluded = {title_key(p.title or "") for p in read_papers(args.exclude)} - {""}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    papers = skipped = 0
    for path in sorted(args.paperlists.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            records = json.load(fh)
        for record in records:
            abstract = record.get("abstract") or ""
            if not abstract:
                continue
            if title_key(record.get("title") or "") in excluded:
                skipped += 1
                continue
            papers += 1
            for key, kinds in abstract_kinds(abstract).items():
                counts[key].update(kinds)
    rows = [key for key in sorted(counts) if sum(counts[key].values()) >= MIN_DF]
    write_tsv_gz(args.output, ["\t".join(("key", *KINDS)),
                               *("\t".join((key, *(str(counts[key][k]) for k in KINDS)))
                                 for key in rows)])
    kept = len(rows)
    print(f"{papers} abstracts ({skipped} excluded), {kept} phrases -> {args.output}")


if __name__ == "__main__":
    main()
