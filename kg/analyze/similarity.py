"""Similar papers and related concepts.

Similar papers: the cosine of the papers' concept vectors weighted by rarity — each concept
weighs its inverse document frequency ln(N / n_c), so sharing a rare concept says more than
sharing "large language model" (Salton & Buckley's tf-idf with binary term frequency). The top
`k` other papers of each paper with a positive score are kept, best first (ties: paper order).

Related concepts: a concept's links in the co-occurrence network with at least `min_shared`
papers in common, strongest association first (ties: more shared papers, then concept order).

>>> from kg.analyze.incidence import Incidence
>>> inc = Incidence(["p1", "p2", "p3", "p4"], ["a", "b", "c"], [[0, 1], [0, 1], [0, 2], [2]],
...                 [None] * 4)
>>> [(s.paper, s.other, s.shared) for s in similar_papers(inc, k=1)]
[(0, 1, 2), (1, 0, 2), (2, 3, 1), (3, 2, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.analyze.incidence import Incidence

if TYPE_CHECKING:
    from kg.analyze.cooccurrence import LinkArrays

#: Papers per block of the sparse product (bounds the memory of one block's scores).
BLOCK = 2000


@dataclass(frozen=True, slots=True)
class Similar:
    """Paper `other` is the `rank`-th most similar to `paper`, sharing `shared` concepts."""

    paper: int
    other: int
    score: float
    shared: int
    rank: int


@dataclass(frozen=True, slots=True)
class Related:
    """Concept `other` is associated with `concept` (association strength, shared papers)."""

    concept: int
    other: int
    strength: float
    shared: int
    rank: int


def similar_papers(inc: Incidence, *, k: int, max_papers: int | None = None) -> list[Similar]:
    """The top-`k` similar papers of every paper (see the module docstring). Concepts linked
    to more than `max_papers` papers are left out of the score, as the `similar-papers` query
    leaves them out: too common to say much, and on a big corpus they would make the product
    nearly dense (every pair of their papers)."""
    import numpy as np
    import scipy.sparse as sp

    n = len(inc.papers)
    if n < 2 or not inc.concepts:
        return []
    x = inc.matrix()
    counts = np.asarray(x.sum(axis=0)).ravel()
    idf = np.log(n / np.maximum(counts, 1))
    weighted = x @ sp.diags(idf)
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    weighted = (sp.diags(1.0 / norms) @ weighted).tocsr()
    # Concepts in one paper only cannot be shared: drop them from the product.
    usable = counts > 1
    if max_papers is not None:
        usable &= counts <= max_papers
    shared_side = weighted[:, np.flatnonzero(usable)].T.tocsc()
    left = weighted[:, np.flatnonzero(usable)].tocsr()
    concept_sets = [set(c) for c in inc.paper_concepts]
    found: list[Similar] = []
    for start in range(0, n, BLOCK):
        block = (left[start:start + BLOCK] @ shared_side).tocsr()
        for row in range(block.shape[0]):
            paper = start + row
            lo, hi = block.indptr[row], block.indptr[row + 1]
            others, scores = block.indices[lo:hi], block.data[lo:hi]
            keep = (others != paper) & (scores > 0)
            others, scores = others[keep], scores[keep]
            if not len(others):
                continue
            order = np.lexsort((others, -np.round(scores, 9)))[:k]
            for rank, at in enumerate(order, start=1):
                other = int(others[at])
                found.append(Similar(paper, other, float(scores[at]),
                                     len(concept_sets[paper] & concept_sets[other]), rank))
    return found


def related_concepts(links: LinkArrays, *, k: int, min_shared: int) -> list[Related]:
    """The top-`k` associated concepts of every concept of the network (`links`)."""
    import numpy as np

    strong = links.count >= min_shared
    source, target = links.source[strong], links.target[strong]
    ends = np.concatenate((source, target))
    others = np.concatenate((target, source))
    counts = np.concatenate((links.count[strong], links.count[strong]))
    weights = np.concatenate((links.weight[strong], links.weight[strong]))
    order = np.lexsort((others, -counts, -np.round(weights, 9), ends))
    sorted_ends = ends[order]
    rank = np.arange(len(order)) - np.searchsorted(sorted_ends, sorted_ends, side="left")
    top = order[rank < k]
    return [Related(int(c), int(o), float(w), int(n), int(r) + 1) for c, o, w, n, r in zip(
        ends[top].tolist(), others[top].tolist(), weights[top].tolist(), counts[top].tolist(),
        rank[rank < k].tolist(), strict=True)]
