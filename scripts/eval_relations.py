"""Score the concept-relation patterns on SciERC dev, and time them against the spaCy parse.

    python scripts/eval_relations.py                      # SciERC dev, typed and untyped
    python scripts/eval_relations.py --bench 200          # + speed on 200 COLM 2025 abstracts

"typed" keeps only the type pairs the graph accepts
(`kg.extract.relation_mentions.TYPE_RULES`, SciERC
labels mapped as in `kg.eval.relations.SCIERC_TYPES`); "untyped" scores every pair the patterns
find between gold entities. See `kg.eval.relations` for how relations map onto SciERC's labels.
"""

from __future__ import annotations

import argparse
import time
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def bench(path: Path, n: int) -> str:
    """Relation-finding time against the parse time of the same abstracts."""
    from kg.extract import Extractor
    from kg.extract.relation_mentions import FieldParse, find_relations
    from kg.extract.textfix import repair
    from kg.ingest import read_papers
    from kg.types import Field

    papers = [p for p in islice(read_papers([path]), n * 2) if p.abstract][:n]
    extractor = Extractor.load()
    extractions = list(extractor.extract_all(papers))
    jobs = [(i, part, repair(p.text(part))) for i, p in enumerate(papers)
            for part in (Field.TITLE, Field.ABSTRACT) if p.text(part).strip()]
    start = time.perf_counter()
    docs = list(extractor.nlp.pipe((r.text for _, _, r in jobs), batch_size=64))
    parse = time.perf_counter() - start
    fields: dict[int, list[FieldParse]] = {}
    for (i, part, fixed), doc in zip(jobs, docs, strict=True):
        fields.setdefault(i, []).append((part, fixed, doc))
    start = time.perf_counter()
    found = 0
    for i, extraction in enumerate(extractions):
        found += len(find_relations(fields.get(i, []), extraction.mentions))
    relations = time.perf_counter() - start
    return (f"{len(papers)} papers of {path.name}: spaCy parse {parse:.2f} s, relations "
            f"{relations * 1000:.0f} ms ({100 * relations / parse:.1f}% of the parse), "
            f"{found} relation mentions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scierc", type=Path, default=SHARED / "scierc" / "dev.json",
                        help="SciERC JSON lines to score on (default: ../shared dev split)")
    parser.add_argument("--bench", type=int, default=0, metavar="N",
                        help="also time relation finding on N abstracts")
    parser.add_argument("--bench-file", type=Path,
                        default=SHARED / "paperlists" / "colm2025.json.gz",
                        help="papers for --bench (default: COLM 2025)")
    args = parser.parse_args()

    from kg.eval.relations import evaluate_scierc, format_report

    for typed in (True, False):
        print(f"SciERC {args.scierc.name}, gold entities, {'typed' if typed else 'untyped'}:")
        print(format_report(evaluate_scierc(args.scierc, typed=typed)))
        print()
    if args.bench:
        print(bench(args.bench_file, args.bench))


if __name__ == "__main__":
    main()
