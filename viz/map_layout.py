"""Positions and label sizes of the map view: communities apart, labels that thin by weight.

Positions: each community is laid out alone (`viz.layout` on its drawn links, in a
disc whose area grows with its size); the discs are placed by a spring layout of the
communities (linked by the links between them) and pushed apart until none overlap — so a
community reads as one island, as in VOSviewer's maps.

Labels: vis-network draws a label only when its font, in pixels on screen, reaches
`DRAW_THRESHOLD` (`scaling.label.drawThreshold`). Each concept, most papers first, gets the
largest font (in layout units) whose label box overlaps no label placed before it: at the first
view (the page fitted to `CANVAS`) the labels of tier 0 are drawn at `DRAW_THRESHOLD` pixels;
each zoom by 2 reveals the next tier, which was placed so that it overlaps none of the earlier
ones. So the first view has no overlapping labels, and zooming in shows more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from viz.layout import compute_layout

if TYPE_CHECKING:
    import networkx as nx

#: Screen pixels a label needs to be drawn, and the largest it is drawn (vis `scaling.label`).
DRAW_THRESHOLD = 11.0
MAX_VISIBLE = 22.0
#: The canvas the first view is planned for (the page corrects for its real size).
CANVAS = (900.0, 700.0)
#: Zoom levels (each ×2) over which labels are revealed.
TIERS = 6
SPACING = 70.0
_CHAR = 0.6  # average character width of the label font, in ems
_LINE = 1.3
_PAD = 0.25  # room kept around a label, in ems
_SEED = 7

Position = tuple[float, float]


def community_layout(groups: Sequence[Sequence[str]], links: Sequence[tuple[str, str, int]],
                     *, seed: int = _SEED) -> dict[str, Position]:
    """Positions of the nodes of `groups` (each drawn as one disc) from the drawn `links`."""
    import networkx as nx

    group_of = {node: i for i, group in enumerate(groups) for node in group}
    radius = [SPACING * 0.5 * math.sqrt(len(g)) + SPACING for g in groups]
    local: list[dict[str, Position]] = []
    for i, group in enumerate(groups):
        sub: nx.Graph = nx.Graph()
        sub.add_nodes_from(group)  # most papers first (the spiral keeps that order)
        sub.add_weighted_edges_from(
            (a, b, float(n)) for a, b, n in links if group_of[a] == i and group_of[b] == i
        )
        local.append(_disc(sub, radius[i] - SPACING, seed))
    meta: nx.Graph = nx.Graph()
    meta.add_nodes_from(range(len(groups)))
    for a, b, n in links:
        ga, gb = group_of[a], group_of[b]
        if ga != gb:
            old = meta.get_edge_data(ga, gb, {"weight": 0.0})["weight"]
            meta.add_edge(ga, gb, weight=old + n)
    centres = _separated(meta, radius, seed)
    return {
        node: (round(centres[i][0] + x, 1), round(centres[i][1] + y, 1))
        for i, block in enumerate(local)
        for node, (x, y) in sorted(block.items())
    }


def _disc(sub: nx.Graph, radius: float, seed: int) -> dict[str, Position]:
    """A force layout of `sub` scaled into a disc of `radius` around (0, 0); nodes without
    links (a group of loose concepts) go on a sunflower spiral instead, in their given order."""
    nodes = list(sub)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    if sub.number_of_edges() == 0:
        return _spiral(nodes, radius)
    # viz.layout: a force layout of at most 400 nodes per component, the rest placed around
    # them, components packed — networkx's own layouts take minutes on 1,500 nodes.
    raw = compute_layout(sub, seed=seed)
    cx = sum(x for x, _ in raw.values()) / len(raw)
    cy = sum(y for _, y in raw.values()) / len(raw)
    raw = {n: (x - cx, y - cy) for n, (x, y) in raw.items()}
    far = max(math.hypot(float(x), float(y)) for x, y in raw.values()) or 1.0
    return {n: (float(x) / far * radius, float(y) / far * radius) for n, (x, y) in raw.items()}


def _spiral(nodes: Sequence[str], radius: float) -> dict[str, Position]:
    """Vogel's sunflower spiral: evenly spread points in a disc, the first in the middle."""
    golden = math.pi * (3 - math.sqrt(5))
    n = len(nodes)
    return {
        node: (radius * math.sqrt((k + 0.5) / n) * math.cos(k * golden),
               radius * math.sqrt((k + 0.5) / n) * math.sin(k * golden))
        for k, node in enumerate(nodes)
    }


def _separated(meta: nx.Graph, radius: list[float], seed: int) -> list[Position]:
    """Centres of the discs: a spring layout of the communities, scaled to the discs' sizes,
    then pushed apart pairwise until no two discs overlap."""
    import networkx as nx
    import numpy as np

    n = len(radius)
    if n == 0:
        return []
    if n == 1:
        return [(0.0, 0.0)]
    raw = nx.spring_layout(meta, seed=seed, iterations=100, weight="weight")
    pos = np.array([raw[i] for i in range(n)], dtype=float)
    r = np.array(radius)
    pos *= math.sqrt(float((r**2).sum())) * 0.8
    gap = SPACING
    for _ in range(300):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.hypot(delta[..., 0], delta[..., 1])
        np.fill_diagonal(dist, np.inf)
        need = r[:, None] + r[None, :] + gap
        overlap = np.clip(need - dist, 0, None)
        if not overlap.any():
            break
        safe = np.where(np.isfinite(dist) & (dist > 1e-9), dist, 1.0)
        push = (delta / safe[..., None]) * (overlap / 2)[..., None]
        pos += push.sum(axis=1)
    return [(float(x), float(y)) for x, y in pos]


def fit_scale(positions: Sequence[Position], sizes: Sequence[float]) -> float:
    """The zoom at which the page, fitted to `CANVAS`, shows every node (as vis's fit does)."""
    xs = [p[0] for p in positions]
    ys = [p[1] for p in positions]
    pad = max(sizes, default=0.0)
    width = max(xs) - min(xs) + 2 * pad
    height = max(ys) - min(ys) + 2 * pad
    return min(CANVAS[0] / max(width, 1.0), CANVAS[1] / max(height, 1.0))


def label_sizes(labels: Sequence[str], positions: Sequence[Position], sizes: Sequence[float],
                scale: float) -> list[tuple[float, int]]:
    """(font size in layout units, tier) per node; `labels` come most important first.

    >>> sizes = label_sizes(["aaaa", "bbbb", "cccc", "dddd"], [(0, 0), (30, 0), (2000, 0), (0, 1)],
    ...                     [10, 10, 10, 10], 1.0)
    >>> [tier for _, tier in sizes]  # "bbbb" fits at half size, "dddd" under "aaaa" never
    [0, 1, 0, 6]
    """
    grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    cell = 4 * DRAW_THRESHOLD / scale / 2 ** (TIERS // 2)
    result = []
    for label, (x, y), size in zip(labels, positions, sizes, strict=True):
        chosen = TIERS
        for tier in range(TIERS):
            font = DRAW_THRESHOLD / (scale * 2**tier)
            box = _box(label, x, y, size, font)
            if not _hits(grid, box, cell):
                chosen = tier
                break
        font = DRAW_THRESHOLD / (scale * 2**chosen)
        if chosen < TIERS:
            _put(grid, _box(label, x, y, size, font), cell)
        result.append((round(font, 2), chosen))
    return result


def _box(label: str, x: float, y: float, size: float, font: float
         ) -> tuple[float, float, float, float]:
    """The label's box below its dot (vis draws a dot's label under it)."""
    half = _CHAR * font * len(label) / 2 + _PAD * font
    top = y + size + 2
    return (x - half, top - _PAD * font, x + half, top + (_LINE + _PAD) * font)


def _cells(box: tuple[float, float, float, float], cell: float) -> list[tuple[int, int]]:
    x0, y0, x1, y1 = box
    return [(i, j) for i in range(math.floor(x0 / cell), math.floor(x1 / cell) + 1)
            for j in range(math.floor(y0 / cell), math.floor(y1 / cell) + 1)]


def _hits(grid: dict[tuple[int, int], list[tuple[float, float, float, float]]],
          box: tuple[float, float, float, float], cell: float) -> bool:
    cells = _cells(box, cell)
    if len(cells) > 4096:  # a huge box at a tiny scale: compare with every placed box
        return any(_overlap(box, other) for items in grid.values() for other in items)
    return any(_overlap(box, other) for c in cells for other in grid.get(c, ()))


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _put(grid: dict[tuple[int, int], list[tuple[float, float, float, float]]],
         box: tuple[float, float, float, float], cell: float) -> None:
    for c in _cells(box, cell):
        grid.setdefault(c, []).append(box)
