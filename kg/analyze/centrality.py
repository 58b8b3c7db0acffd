"""Centrality of concepts and papers.

- Link strength of a concept: the sum of its co-occurrence counts in the network (VOSviewer's
  "total link strength": how many paper-level co-occurrences it takes part in).
- PageRank (networkx, damping 0.85) of papers and concepts on the bipartite paper–concept
  graph: a concept ranks high when well-connected papers use it, a paper when it links
  concepts that many papers use.

>>> from kg.analyze.incidence import Incidence
>>> inc = Incidence(["p1", "p2"], ["a", "b"], [[0, 1], [0]], [None, None])
>>> papers, concepts = pagerank(inc)
>>> concepts[0] > concepts[1], papers[0] > papers[1]
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kg.analyze.cooccurrence import Network
from kg.analyze.incidence import Incidence

if TYPE_CHECKING:
    import networkx as nx

DAMPING = 0.85


def link_strength(network: Network) -> dict[int, int]:
    """Each node's sum of its links' `count`s."""
    import numpy as np

    links, size = network.links, len(network.paper_counts)
    total = (np.bincount(links.source, weights=links.count, minlength=size)
             + np.bincount(links.target, weights=links.count, minlength=size))
    return {int(j): int(total[j]) for j in network.nodes}


def pagerank(inc: Incidence) -> tuple[list[float], list[float]]:
    """(PageRank of each paper, of each concept) on the undirected paper–concept graph."""
    import networkx as nx

    n_papers = len(inc.papers)
    graph: nx.Graph = nx.Graph()
    graph.add_nodes_from(range(n_papers + len(inc.concepts)))
    graph.add_edges_from(
        (i, n_papers + j) for i, linked in enumerate(inc.paper_concepts) for j in linked
    )
    if graph.number_of_edges() == 0:
        return [0.0] * n_papers, [0.0] * len(inc.concepts)
    rank = nx.pagerank(graph, alpha=DAMPING)
    values = [float(rank[n]) for n in range(graph.number_of_nodes())]
    return values[:n_papers], values[n_papers:]
