"""Build kg/data/origins.tsv.gz: the paper that introduced each Papers-with-Code method.

PwC records, for 2,056 of its 2,275 methods, the paper that introduced the method (`paper.title`,
`source_url`). This script writes one row per (name key, method): the key of the method's name
or full name (`kg.normalize.norm_key`, the names `scripts/build_gazetteer.py` gives the method),
its PwC IRI (the gazetteer's `source_id`), the introducing paper's title, its arXiv id and its
year. The year comes from the arXiv id ("1704.01212" -> 2017) or from a proceedings address
that carries it (CVF open access, ACL Anthology, NeurIPS proceedings); otherwise it is left
empty. PwC's `introduced_year` is not used: 2,217 of the 2,275 methods have the placeholder 2000.

Sorted and gzipped with mtime 0, so a rebuild is byte-identical
(`tests/test_vocab_build.py` checks it). Read by `kg.vocab.origins`.

Rebuild:  python scripts/build_origins.py --vocab ../shared/data/vocab --out kg/data
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

import gazetteer_rules as rules
from build_gazetteer import is_title_like, spells, write_tsv_gz

from kg.normalize import norm_key

HEADER = ("key", "source_id", "title", "arxiv_id", "year")
ORIGINS_FILE = "origins.tsv.gz"
# arXiv identifiers: new style "1704.01212(v2)", old style "cs/0501001".
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/((\d{2})(\d{2})\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/(\d{2})\d{5})", re.I)
# Proceedings addresses that carry the year: CVF open access ("content_cvpr_2017", "content/
# ICCV2021"), the ACL Anthology ("2020.acl-main.362", "P16-2038"), NeurIPS ("paper/2020/hash").
_PROCEEDINGS_YEAR = [
    re.compile(r"openaccess\.thecvf\.com/content[_/][A-Za-z]+_?((?:19|20)\d\d)\b"),
    re.compile(r"aclanthology\.org/((?:19|20)\d\d)\."),
    re.compile(r"aclanthology\.org/[A-Z](\d\d)-\d{4}"),
    re.compile(r"(?:proceedings\.neurips\.cc|papers\.nips\.cc)/paper/((?:19|20)\d\d)/"),
]


def arxiv_id(url: str) -> str:
    """The arXiv identifier of an abs/pdf address without its version, or ""."""
    m = _ARXIV.search(url)
    return re.sub(r"v\d+$", "", m.group(1)) if m else ""


def year_of(url: str) -> str:
    """The year an address dates its paper to, or "".

    >>> [year_of(u) for u in ["https://arxiv.org/abs/2103.03230v3", "http://arxiv.org/abs/cs/9901001",
    ...  "https://aclanthology.org/P16-2038", "https://ieeexplore.ieee.org/document/9222020"]]
    ['2021', '1999', '2016', '']
    """
    m = _ARXIV.search(url)
    if m:
        yy = m.group(2) or m.group(4)
        return str((1900 if int(yy) >= 90 else 2000) + int(yy))
    for pattern in _PROCEEDINGS_YEAR:
        found = pattern.search(url)
        if found:
            year = found.group(1)
            return year if len(year) == 4 else str(2000 + int(year))
    return ""


def rows(methods: list[dict]) -> list[tuple[str, ...]]:
    """One row per (name key, method) of every method whose introducing paper PwC names."""
    out: set[tuple[str, ...]] = set()
    for m in methods:
        iri = m["url"].rstrip("/")
        slug = iri.rsplit("/", 1)[1]
        title = rules.clean_label(((m.get("paper") or {}).get("title")) or "")
        if not title or slug in rules.DROP_METHOD_SLUGS or "(deleted" in m["name"]:
            continue
        url = m.get("source_url") or ""
        names = [rules.clean_label(m["name"])]
        full = rules.clean_label(m.get("full_name") or "")
        # The names a method was introduced under: a full name that is the introducing
        # paper's title counts when the name spells it ("Trust Region Policy Optimization"),
        # so that the paper writing it out is known as its origin (`kg.canon.origin`).
        if full and full != names[0] and (not is_title_like(full, m) or spells(names[0], full)):
            names.append(full)
        for name in names:
            key = norm_key(name)
            if key:
                out.add((key, iri, title, arxiv_id(url), year_of(url)))
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", type=Path, required=True, help="../shared/data/vocab")
    parser.add_argument("--out", type=Path, required=True, help="kg/data")
    args = parser.parse_args()
    source = args.vocab / "pwc" / "methods.json.gz"
    if not source.is_file():
        raise SystemExit(f"{source}: not found: pass --vocab ../shared/data/vocab")
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        methods = json.load(fh)
    table = rows(methods)
    write_tsv_gz(args.out / ORIGINS_FILE, HEADER, table)
    dated = Counter(bool(r[4]) for r in table)
    print(f"{ORIGINS_FILE}: {len(table)} rows, {len({r[1] for r in table})} methods, "
          f"{len({r[0] for r in table})} name keys; dated {dated[True]}, undated {dated[False]}")


if __name__ == "__main__":
    main()
