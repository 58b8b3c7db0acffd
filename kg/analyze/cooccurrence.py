"""The concept co-occurrence network: two concepts are linked by the papers they share.

Each link carries the raw count (papers in common) and its association strength, the
normalisation VOSviewer uses (van Eck & Waltman, "How to normalize cooccurrence data? An
analysis of some well-known similarity measures", JASIST 2009):

    AS(i, j) = c_ij · N / (n_i · n_j)

with c_ij the papers both concepts are linked to, n_i and n_j their papers and N all papers: the
ratio of the observed co-occurrences to those expected if the two concepts were independent, so
that two common concepts are not linked strongly merely for being common.

>>> from kg.analyze.incidence import Incidence
>>> inc = Incidence(["p1", "p2", "p3", "p4"], ["a", "b", "c"], [[0, 1], [0, 1], [1, 2], [2]],
...                 [None] * 4)
>>> net = cooccurrence_network(inc, min_papers=2)
>>> links = net.links
>>> [(int(a), int(b), int(c), round(float(w), 3))
...  for a, b, c, w in zip(links.source, links.target, links.count, links.weight)]
[(0, 1, 2, 1.333), (1, 2, 1, 0.667)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.analyze.incidence import Incidence

if TYPE_CHECKING:
    import numpy as np


@dataclass(slots=True)
class Network:
    """The co-occurrence network: nodes are concept numbers of the `Incidence` (those with at
    least `min_papers` papers, sorted), links carry `count` and `weight` (association
    strength). Held as arrays: on the 35k-paper graph (36k concepts, 1.09 M links) a networkx
    graph of it took 7 s to build and most of the analysis' memory."""

    nodes: np.ndarray
    paper_counts: np.ndarray  # papers per concept, for every concept of the incidence
    n_papers: int
    links: LinkArrays

    def member(self) -> np.ndarray:
        """`[j]` is True when concept j is a node of the network."""
        import numpy as np

        mask = np.zeros(len(self.paper_counts), dtype=bool)
        mask[self.nodes] = True
        return mask


@dataclass(frozen=True, slots=True)
class LinkArrays:
    """The network's links as parallel arrays in (source, target) order, source < target: what
    the compiled community detection (`kg.analyze.communities`) reads without walking the
    networkx graph."""

    source: np.ndarray
    target: np.ndarray
    count: np.ndarray
    weight: np.ndarray


def cooccurrence_network(inc: Incidence, *, min_papers: int) -> Network:
    """The network of the concepts linked to at least `min_papers` papers.

    Counts come from one sparse product (Xᵀ X of the papers × concepts matrix); links are in
    number order, so that Leiden (seeded) sees the same graph every time.
    """
    import numpy as np
    import scipy.sparse as sp

    counts = inc.paper_counts()
    kept = np.flatnonzero(counts >= min_papers)
    empty = np.zeros(0, dtype=np.int64)
    links = LinkArrays(empty, empty, empty, np.zeros(0))
    if len(kept) > 1:
        x = inc.matrix()[:, kept].tocsc().astype(np.float32)
        shared = sp.triu(x.T @ x, k=1).tocoo()
        rows, cols, values = kept[shared.row], kept[shared.col], shared.data
        order = np.lexsort((cols, rows))
        n = float(len(inc.papers))
        expected = counts[rows].astype(np.float64) * counts[cols].astype(np.float64)
        strength = values.astype(np.float64) * n / expected
        links = LinkArrays(rows[order].astype(np.int64), cols[order].astype(np.int64),
                           values[order].astype(np.int64), strength[order])
    return Network(kept.astype(np.int64), counts, len(inc.papers), links)
