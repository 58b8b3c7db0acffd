"""Communities of the co-occurrence network: Louvain (networkx's `louvain_communities`).

Blondel, Guillaume, Lambiotte & Lefebvre, "Fast unfolding of communities in large networks"
(J. Stat. Mech. 2008), on the association-strength weights, as VOSviewer clusters its maps on
normalised weights. The seed is fixed and the graph is built in a fixed order, so the same
graph gives the same communities. Communities are numbered by size (largest first, ties by
their first concept's IRI); a concept alone in its community (no link in the network) gets none.

>>> import networkx as nx
>>> g = nx.Graph()
>>> g.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0),
...                            (3, 4, 1.0), (4, 5, 1.0), (3, 5, 1.0), (2, 3, 0.1)])
>>> [c.members for c in find_communities(g, seed=1)]
[(0, 1, 2), (3, 4, 5)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True, slots=True)
class Community:
    """One community: its number (1 = largest) and member concept numbers (sorted)."""

    number: int
    members: tuple[int, ...]


def find_communities(
    graph: nx.Graph, *, seed: int, resolution: float = 1.0, key: Callable[[int], str] = str,
    links: int | None = None,
) -> list[Community]:
    """Louvain communities of `graph` with at least two members, numbered by size; `key` gives
    a node's tie-breaking name (its IRI). With `links`, Louvain runs on `backbone(graph, links)`."""
    import networkx as nx

    found = nx.community.louvain_communities(
        backbone(graph, links) if links is not None else graph, weight="weight",
        resolution=resolution, seed=seed,
    )
    groups = [tuple(sorted(c)) for c in found if len(c) > 1]
    groups.sort(key=lambda members: (-len(members), min(key(m) for m in members)))
    return [Community(i + 1, members) for i, members in enumerate(groups)]


def backbone(graph: nx.Graph, k: int) -> nx.Graph:
    """Each node's `k` strongest links (most shared papers, then the stronger association),
    merged: the graph Louvain runs on.

    On a big corpus most links are one shared paper, the chance co-occurrences of a common
    concept; they outnumber the rest and cost most of networkx's (pure Python) Louvain time,
    while the communities rest on the strong links every concept keeps here — the k-nearest-
    neighbour graphs community detection commonly runs on.

    >>> import networkx as nx
    >>> g = nx.Graph()
    >>> g.add_edge(0, 1, count=5, weight=1.0); g.add_edge(0, 2, count=1, weight=9.0)
    >>> g.add_edge(2, 3, count=2, weight=1.0)
    >>> sorted(backbone(g, 1).edges)
    [(0, 1), (2, 3)]
    """
    import networkx as nx

    kept: nx.Graph = nx.Graph()
    kept.add_nodes_from(graph)
    for node in graph:
        strongest = sorted(graph[node].items(),
                           key=lambda item: (-item[1]["count"], -item[1]["weight"], item[0]))
        for other, data in strongest[:k]:
            kept.add_edge(node, other, **data)
    return kept


def community_label(members: Sequence[int], labels: Sequence[str], rank: Sequence[float],
                    size: int) -> str:
    """The `size` most central members' labels (by `rank`, then label), joined with " · ".

    >>> community_label([0, 1, 2], ["a", "b", "c"], [0.1, 0.3, 0.2], 2)
    'b · c'
    """
    best = sorted(members, key=lambda m: (-rank[m], labels[m], m))[:size]
    return " · ".join(labels[m] for m in best)
