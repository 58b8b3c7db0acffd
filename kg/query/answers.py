"""Named queries whose costly sub-select is answered from the link index (`kg.query.links`).

`co-occurring` ranks the concepts that share papers with a concept; `papers-using` finds the
strongest role of each link between a paper and a concept. Both group every link of every paper
of the concept inside one sub-select, which is what makes them slow on a large store, and both
sub-selects are plain functions of the `kg:mentions` links (and the role properties) of the
label-matched concepts. So, on a store with a link index, the sub-select's rows are computed from
the index, written into the query as a VALUES block in its place (`values_template`), and the
engine runs the rest of the query text as written: joins, filters, labels, types and order.

Why the rows are the sub-select's:

- the matched concepts `?c` are found by the engine, with the query's own label pattern and
  FILTER (`MATCH`), the label index pre-binding its candidates as everywhere else;
- co-occurring: `COUNT(DISTINCT ?paper)` of `?paper kg:mentions ?c, ?other` with `?other` not
  `?c`, grouped by `?other`, is for each concept `o` the number of papers that mention `o` and
  some matched concept other than `o`; the sub-select keeps the 25 highest counts, ties in the
  order of `?other`'s IRI, which is the order of the index's concept numbers (`top_cooccurring`);
- papers-using: `MIN(?rank)` over `?paper kg:mentions ?c ; ?link ?c` is the index's strongest
  role of that (paper, concept) pair; a page (a row limit) needs only the pairs of the first
  papers in the query's order (newest first), as `OxigraphSource` walks them without the index.

Each answer is tied to the exact text it was proven for (`PROVEN`, a SHA-256 of the `.rq` file's
text): an edited query runs as written until its answer here is checked again and the hash
updated (tests/test_links.py compares both ways of answering on graphs full of ties).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping

import pyoxigraph as ox

from kg.query.links import ROLE_RANKS, LinkIndex
from kg.query.result import QueryResult
from kg.query.sparql_text import fill_template, values_template
from kg.query.terms import Term

__all__ = ["MATCH", "PROVEN", "answer", "proven", "top_cooccurring"]

# The texts (SHA-256 of the .rq file) whose sub-select each answer gives.
PROVEN = {
    "co-occurring": "7d405bbc4f41bc850bb46c0f2fdb7436b143cf3690ef106de6ce9f883f70c256",
    "papers-using": "772e091ffa9076840d83148eab0e44aa4c1bf17dce117f61d975b505b9df3232",
}
# The label pattern of both queries: the concepts `?c` that `?concept` names.
MATCH = """PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT DISTINCT ?c WHERE {
  ?c skos:prefLabel|skos:altLabel ?matched .
  FILTER(LCASE(?matched) = LCASE(?concept))
}"""
CO_OCCURRING_TOP = 25
GROWTH = 4

Run = Callable[[str, int | None], QueryResult]


@functools.lru_cache(maxsize=64)
def proven(name: str, text: str) -> bool:
    """True when `text` is the text of the named query `name` its answer was proven for."""
    return PROVEN.get(name) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer(
    name: str,
    sparql: str,
    terms: Mapping[str, Term],
    links: LinkIndex,
    matched: Callable[[], list[str]],
    run: Run,
    limit: int | None,
    *,
    first_batch: int | None = None,
) -> QueryResult | None:
    """The answer of the named query `name` (text `sparql`, parameters `terms`) with its
    sub-select answered from `links`, or None when this module has no proven answer for it
    (the caller then runs the query as usual). `matched()` gives the IRIs of the concepts the
    label names, `run(text, limit)` runs a query text on the store."""
    if not proven(name, sparql):
        return None
    names = sorted(terms)
    param_row = [str(terms[n]) for n in names]
    concepts = links.ids(matched())
    if name == "co-occurring":
        template, at = values_template(sparql, ("other", "sharedPapers"))
        rows = [
            [str(ox.NamedNode(links.iri(other))), str(ox.Literal(count))]
            for other, count in top_cooccurring(links, concepts, CO_OCCURRING_TOP)
        ]
        return run(fill_template(template, at, rows, names, param_row), limit)
    role = terms.get("role")
    strongest = ROLE_RANKS.get(role.value) if isinstance(role, ox.NamedNode) else None
    template, at = values_template(sparql, ("paper", "c", "strongest"))
    size = None if limit is None else (first_batch or limit + 1)
    while True:
        found, more = links.links(concepts, strongest=strongest, papers=size)
        if found and found[0][0] is None:
            return None  # a linked paper the rank index does not order (they come first)
        rows = [
            [str(ox.NamedNode(paper)), str(ox.NamedNode(concept)), str(ox.Literal(rank))]
            for _, paper, concept, rank in found
        ]
        result = run(fill_template(template, at, rows, names, param_row), None)
        # Rows of later papers sort after these (newest first): these are the first rows.
        if size is None or limit is None or len(result.rows) > limit or not more:
            return result.cut(limit)
        size *= GROWTH


def top_cooccurring(links: LinkIndex, concepts: list[int], top: int) -> list[tuple[int, int]]:
    """(concept number, shared papers) of the `top` concepts mentioned in the most papers that
    also mention one of `concepts` (other than that concept itself), most first, ties by number.

    A concept `o` counts a paper that mentions `o` and some concept of `concepts` other than
    `o`: for `o` outside `concepts`, any paper of theirs; for `o` among them, a paper of one of
    the others.
    """
    import numpy as np  # not at import time (see `kg.query.links`)

    if not concepts:
        return []
    papers = {c: links.papers(c) for c in concepts}
    counts = links.concept_counts(np.unique(np.concatenate(list(papers.values()))))
    for own in concepts:
        others = [papers[c] for c in concepts if c != own]
        shared = (
            np.intersect1d(np.unique(np.concatenate(others)), papers[own], assume_unique=True)
            if others
            else ()
        )
        counts[own] = len(shared)
    found = np.flatnonzero(counts)
    order = np.lexsort((found, -counts[found]))[:top]
    return [(int(found[i]), int(counts[found[i]])) for i in order]
