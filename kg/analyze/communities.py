"""Communities of the co-occurrence network: Leiden (igraph's `community_leiden`).

Traag, Waltman & van Eck, "From Louvain to Leiden: guaranteeing well-connected communities"
(Sci. Rep. 2019): Louvain's local moves plus a refinement step, so that no community falls apart
into disconnected pieces; modularity objective on the association-strength weights, as
VOSviewer clusters its maps on normalised weights. It runs in igraph (compiled C) rather than
networkx's pure-Python `louvain_communities`: on a 35,000-paper synthetic corpus (18k concepts,
155k backbone links; `python scripts/bench_analyze.py --synthetic 35000 --networkx-louvain`)
igraph's Leiden took 6.6 s and 21.1 s, networkx's Louvain 15.9 s and 64.6 s in the same two runs
(a loaded machine), and Leiden's modularity was higher (0.722 vs 0.717). networkx still holds
the network and computes the rest.

The random generator is seeded and the graph built in a fixed order, so the same network gives
the same communities. Communities are numbered by size (largest first, ties by their first
concept's IRI); a concept alone in its community (no link in the backbone) gets none.

>>> import numpy as np
>>> from kg.analyze.cooccurrence import LinkArrays
>>> links = LinkArrays(np.array([0, 0, 1, 2, 3, 3, 4]), np.array([1, 2, 2, 3, 4, 5, 5]),
...                    np.array([3, 3, 3, 1, 3, 3, 3]),
...                    np.array([1.0, 1.0, 1.0, 0.1, 1.0, 1.0, 1.0]))
>>> [c.members for c in find_communities(range(6), links, seed=1)]
[(0, 1, 2), (3, 4, 5)]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from kg.analyze.cooccurrence import LinkArrays


@dataclass(frozen=True, slots=True)
class Community:
    """One community: its number (1 = largest) and member concept numbers (sorted)."""

    number: int
    members: tuple[int, ...]


def find_communities(
    nodes: Iterable[int], links: LinkArrays, *, seed: int, resolution: float = 1.0,
    key: Callable[[int], str] = str, backbone_links: int | None = None,
    iterations: int = 4,
) -> list[Community]:
    """Leiden communities of the network (`nodes`, `links`) with at least two members,
    numbered by size; `key` gives a node's tie-breaking name (its IRI). With
    `backbone_links`, Leiden runs on `backbone(links, backbone_links)`; it makes `iterations`
    passes (-1: until a pass changes nothing)."""
    import igraph
    import numpy as np

    vertices = np.array(sorted(nodes), dtype=np.int64)
    keep = (backbone(links, backbone_links) if backbone_links is not None
            else np.ones(len(links.source), dtype=bool))
    edges = np.column_stack((np.searchsorted(vertices, links.source[keep]),
                             np.searchsorted(vertices, links.target[keep])))
    graph = igraph.Graph(n=len(vertices), edges=edges.tolist())
    igraph.set_random_number_generator(random.Random(seed))
    try:
        found = graph.community_leiden(objective_function="modularity",
                                       weights=links.weight[keep].tolist(),
                                       resolution=resolution,
                                       n_iterations=iterations)
    finally:
        igraph.set_random_number_generator(random)  # igraph's default: the random module
    groups = [tuple(int(vertices[i]) for i in sorted(members))
              for members in found if len(members) > 1]
    groups.sort(key=lambda members: (-len(members), min(key(m) for m in members)))
    return [Community(i + 1, members) for i, members in enumerate(groups)]


def backbone(links: LinkArrays, k: int) -> np.ndarray:
    """Which links are among either end's `k` strongest (most shared papers, then the stronger
    association, then the lower other end): the graph Leiden runs on, as a boolean mask.

    On a big corpus most links are one shared paper, the chance co-occurrences of a common
    concept; they outnumber the rest and cost most of the detection's time, while the
    communities rest on the strong links every concept keeps here — the k-nearest-neighbour
    graphs community detection commonly runs on.

    >>> import numpy as np
    >>> from kg.analyze.cooccurrence import LinkArrays
    >>> links = LinkArrays(np.array([0, 0, 2]), np.array([1, 2, 3]), np.array([5, 1, 2]),
    ...                    np.array([1.0, 9.0, 1.0]))
    >>> backbone(links, 1).tolist()
    [True, False, True]
    """
    import numpy as np

    m = len(links.source)
    ends = np.concatenate((links.source, links.target))
    others = np.concatenate((links.target, links.source))
    counts = np.concatenate((links.count, links.count))
    weights = np.concatenate((links.weight, links.weight))
    order = np.lexsort((others, -weights, -counts, ends))
    sorted_ends = ends[order]
    rank = np.arange(len(order)) - np.searchsorted(sorted_ends, sorted_ends, side="left")
    mask = np.zeros(m, dtype=bool)
    mask[order[rank < k] % m] = True
    return mask


def community_label(members: Sequence[int], labels: Sequence[str], rank: Sequence[float],
                    size: int) -> str:
    """The `size` most central members' labels (by `rank`, then label), joined with " · ".

    >>> community_label([0, 1, 2], ["a", "b", "c"], [0.1, 0.3, 0.2], 2)
    'b · c'
    """
    best = sorted(members, key=lambda m: (-rank[m], labels[m], m))[:size]
    return " · ".join(labels[m] for m in best)
