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
>>> [(a, b, d["count"], round(d["weight"], 3)) for a, b, d in sorted(net.graph.edges(data=True))]
[(0, 1, 2, 1.333), (1, 2, 1, 0.667)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.analyze.incidence import Incidence

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np


@dataclass(slots=True)
class Network:
    """The co-occurrence network: nodes are concept numbers of the `Incidence` (those with at
    least `min_papers` papers), edges carry `count` and `weight` (association strength)."""

    graph: nx.Graph
    paper_counts: np.ndarray  # papers per concept, for every concept of the incidence
    n_papers: int
    links: LinkArrays


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

    Counts come from one sparse product (Xᵀ X of the papers × concepts matrix); nodes and
    edges are added in number order, so that Leiden (seeded) sees the same graph every time.
    """
    import networkx as nx
    import numpy as np
    import scipy.sparse as sp

    counts = inc.paper_counts()
    kept = np.flatnonzero(counts >= min_papers)
    graph: nx.Graph = nx.Graph()
    graph.add_nodes_from(int(j) for j in kept)
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
        graph.add_edges_from(
            (int(rows[k]), int(cols[k]), {"count": int(values[k]), "weight": float(strength[k])})
            for k in order
        )
        links = LinkArrays(rows[order].astype(np.int64), cols[order].astype(np.int64),
                           values[order].astype(np.int64), strength[order])
    return Network(graph, counts, len(inc.papers), links)
