"""Node positions computed in Python, so a big page draws at once instead of simulating.

networkx's force-directed layout (Fruchterman-Reingold) is dense — O(n²) memory and time per
iteration without SciPy — so it is run on at most `CORE_MAX` nodes per connected component: the
most connected ones. The other nodes are then placed around their already placed neighbours,
breadth-first (a cheap multilevel scheme: Walshaw, "A Multilevel Algorithm for Force-Directed
Graph Drawing", 2000, places coarse nodes first and refines; we skip the refinement). Components
are laid out separately and packed in rows, largest first. Positions are deterministic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

#: Largest number of nodes laid out by force simulation in one component.
CORE_MAX = 400
#: Typical distance between neighbouring nodes on the page, in pixels.
SPACING = 70.0
_SEED = 7
_GAP = 2.0 * SPACING

Position = tuple[float, float]


def compute_layout(graph: nx.Graph, *, seed: int = _SEED) -> dict[str, Position]:
    """Pixel positions of every node of `graph` (edge direction is ignored)."""
    import networkx as nx

    # A plain undirected copy: degree and neighbour lookups on views of views are slow.
    undirected = _ordered(nx.Graph(graph), graph.nodes)
    components = sorted(
        (sorted(c) for c in nx.connected_components(undirected)), key=lambda c: (-len(c), c[0])
    )
    blocks = [
        _component_layout(
            undirected if len(nodes) == len(undirected) else _ordered(undirected, nodes), seed
        )
        for nodes in components
    ]
    return _pack(blocks)


def _ordered(graph: nx.Graph, nodes: Iterable[str]) -> nx.Graph:
    """The part of the undirected `graph` on `nodes`, nodes and edges (with their data) added
    in sorted order.

    The force layout's start positions and iteration follow node order, and
    `graph.subgraph(nodes)` orders nodes as a set does, which changes with PYTHONHASHSEED: the
    page would differ from run to run.
    """
    import networkx as nx

    keep = sorted(set(nodes))
    inside = set(keep)
    edges = sorted({(min(u, v), max(u, v)) for u, v in graph.edges(keep) if v in inside})
    ordered = nx.Graph()
    ordered.add_nodes_from((n, graph.nodes[n]) for n in keep)
    ordered.add_edges_from((u, v, graph.edges[u, v]) for u, v in edges)
    return ordered


def _component_layout(component: nx.Graph, seed: int) -> dict[str, Position]:
    """Positions of one connected component, centred on (0, 0), in pixels."""
    import networkx as nx

    nodes = sorted(component)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    core = _core(component)
    # spring_layout places nodes in a [-1, 1] box; the box grows with the whole component so
    # that the nodes placed around the core later have room.
    unit = nx.spring_layout(
        _ordered(component, core), seed=seed, iterations=100, method="force"
    )
    scale = SPACING * math.sqrt(len(nodes)) / 2.0
    pos = {n: (float(xy[0]) * scale, float(xy[1]) * scale) for n, xy in unit.items()}
    if len(core) < len(nodes):
        _place_rest(component, pos, random.Random(seed))
    return pos


def _core(component: nx.Graph) -> list[str]:
    """Up to `CORE_MAX` nodes grown from the best-connected one, always taking the
    best-connected node adjacent to the core, so that the core is itself connected."""
    import heapq

    degree = dict(component.degree())
    start = min(component, key=lambda n: (-degree[n], n))
    core = {start}
    heap = [(-degree[m], m) for m in component[start]]
    heapq.heapify(heap)
    while heap and len(core) < CORE_MAX:
        _, node = heapq.heappop(heap)
        if node in core:
            continue
        core.add(node)
        for m in component[node]:
            if m not in core:
                heapq.heappush(heap, (-degree[m], m))
    return sorted(core)


def _place_rest(component: nx.Graph, pos: dict[str, Position], rng: random.Random) -> None:
    """Place every unplaced node near its placed neighbours, one breadth-first ring at a time.

    A node with several placed neighbours goes near their centroid; the nodes hanging off a
    single placed node are spread evenly on a circle around it.
    """
    frontier = sorted({m for n in pos for m in component[n] if m not in pos})
    while frontier:
        anchored: dict[str, list[str]] = {}
        placed: dict[str, Position] = {}
        for node in frontier:
            near = sorted(m for m in component[node] if m in pos)
            if len(near) == 1:
                anchored.setdefault(near[0], []).append(node)
            else:
                cx = sum(pos[m][0] for m in near) / len(near)
                cy = sum(pos[m][1] for m in near) / len(near)
                angle = rng.uniform(0, 2 * math.pi)
                radius = SPACING * rng.uniform(0.2, 0.6)
                placed[node] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
        for anchor, leaves in sorted(anchored.items()):
            ax, ay = pos[anchor]
            phase = rng.uniform(0, 2 * math.pi)
            # Rings grow with the number of leaves so that they do not overlap.
            radius = SPACING * max(0.6, len(leaves) / (2 * math.pi) * 0.35)
            for i, leaf in enumerate(leaves):
                angle = phase + 2 * math.pi * i / len(leaves)
                placed[leaf] = (ax + radius * math.cos(angle), ay + radius * math.sin(angle))
        pos.update(placed)
        frontier = sorted({m for n in placed for m in component[n] if m not in pos})


def _pack(blocks: list[dict[str, Position]]) -> dict[str, Position]:
    """Shelf-pack component layouts (largest first) in rows about as wide as the total is tall."""
    boxes = []
    for block in blocks:
        xs = [x for x, _ in block.values()]
        ys = [y for _, y in block.values()]
        boxes.append((min(xs), min(ys), max(xs) - min(xs) + _GAP, max(ys) - min(ys) + _GAP))
    area = sum(w * h for _, _, w, h in boxes)
    row_width = max([math.sqrt(area) * 1.3] + [w for _, _, w, _ in boxes])
    result: dict[str, Position] = {}
    x = y = row_height = 0.0
    for block, (x0, y0, w, h) in zip(blocks, boxes, strict=True):
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height, 0.0
        for node, (nx_, ny_) in block.items():
            result[node] = (round(nx_ - x0 + x, 1), round(ny_ - y0 + y, 1))
        x += w
        row_height = max(row_height, h)
    return result
