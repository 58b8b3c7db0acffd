"""The subgraphs the page can draw, each with a note saying what was left out.

- `whole_view`: everything, or — above `max_nodes` — the most connected concepts and the papers
  most linked to them;
- `ego_view`: the neighbourhood of one node (`--focus "diffusion model" --hops 2`);
- `concept_view`: concepts only, linked by the number of papers they share;
- `query_view`: the papers and concepts a named query returns (see `viz.query`).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kg.errors import InputError
from kg.normalize import norm_key

if TYPE_CHECKING:
    import networkx as nx

#: Default node budget of a page: enough to see structure, few enough to read labels.
DEFAULT_MAX_NODES = 300
#: The concept map keeps at most this many edges per node on average; beyond it, each concept
#: keeps only its strongest links (a backbone), so the map stays legible.
CONCEPT_EDGES_PER_NODE = 4
CONCEPT_BACKBONE_K = 5


@dataclass(slots=True)
class View:
    """A subgraph to draw: `graph` keeps the node/edge attributes of `viz.load`."""

    graph: nx.Graph
    kind: str
    title: str
    note: str
    focus: str | None = None


def _n(count: int, word: str) -> str:
    """'1 paper', '2 papers', '1,200 concepts'."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def kinds(graph: nx.Graph, nodes: Iterable[str] | None = None) -> tuple[list[str], list[str]]:
    """(papers, concepts) among `nodes` (default: all), each in node order."""
    papers: list[str] = []
    concepts: list[str] = []
    for node in graph.nodes if nodes is None else nodes:
        (papers if graph.nodes[node]["kind"] == "paper" else concepts).append(node)
    return papers, concepts


def rank_concepts(graph: nx.Graph, concepts: Iterable[str]) -> list[str]:
    """Concepts most connected first (papers linked here, then corpus paper count, then label)."""
    return sorted(
        concepts,
        key=lambda c: (-graph.degree(c), -graph.nodes[c]["count"], graph.nodes[c]["label"], c),
    )


def whole_view(graph: nx.DiGraph, max_nodes: int = DEFAULT_MAX_NODES) -> View:
    """The whole graph, or its most connected part when it has more than `max_nodes` nodes.

    Above the budget, half of it goes to the concepts with the most papers and the rest to the
    papers linked to most of those concepts; budget the papers leave unused goes to further
    concepts, so the page shows exactly `max_nodes` nodes when the graph has that many.
    """
    papers, concepts = kinds(graph)
    total = graph.number_of_nodes()
    if total <= max_nodes:
        note = f"All {_n(len(papers), 'paper')} and {_n(len(concepts), 'concept')}."
        return View(graph.copy(), "whole", "paperkg graph", note)
    ranked = rank_concepts(graph, concepts)
    k = max(1, min(len(ranked), max_nodes // 2))
    while True:
        chosen = ranked[:k]
        chosen_papers = _papers_linked_most(graph, chosen)[: max_nodes - k]
        spare = max_nodes - k - len(chosen_papers)
        if spare <= 0 or k >= len(ranked):
            break
        k = min(len(ranked), k + spare)
    sub = graph.subgraph(chosen + chosen_papers).copy()
    note = (
        f"Showing {len(chosen) + len(chosen_papers):,} of {total:,} nodes: the "
        f"{_n(len(chosen), 'concept')} with the most papers and the "
        f"{_n(len(chosen_papers), 'paper')} linked to most of them. Left out: "
        f"{_n(len(concepts) - len(chosen), 'concept')} and "
        f"{_n(len(papers) - len(chosen_papers), 'paper')}"
        " — raise --max-nodes, or draw one neighbourhood with --focus."
    )
    return View(sub, "whole", "paperkg graph (most connected part)", note)


def _papers_linked_most(graph: nx.DiGraph, concepts: list[str]) -> list[str]:
    """Papers linked to any of `concepts`, those linked to the most of them first."""
    score: Counter[str] = Counter()
    for concept in concepts:
        score.update(graph.predecessors(concept))
    return sorted(score, key=lambda p: (-score[p], -graph.degree(p), graph.nodes[p]["label"], p))


def find_node(graph: nx.Graph, text: str) -> str:
    """The node `text` names: an IRI, a concept label or alias, a paper id or title.

    Matching folds case, plurals and hyphenation (`kg.normalize.norm_key`); when several nodes
    match, concepts win over papers, then the one with the most papers.
    """
    if text in graph:
        return text
    key = norm_key(text)
    matches = [
        node
        for node, attrs in graph.nodes(data=True)
        if key in {norm_key(name) for name in _names(attrs)}
    ]
    if matches:
        return min(
            matches,
            key=lambda n: (graph.nodes[n]["kind"] != "concept", -graph.nodes[n]["count"], n),
        )
    labels = sorted({str(attrs["label"]) for _, attrs in graph.nodes(data=True)})
    close = difflib.get_close_matches(text, labels, n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else (
        "; search the page, or list concepts with `kg query`")
    raise InputError(f"no concept or paper is named {text!r} in this graph{hint}")


def _names(attrs: dict[str, Any]) -> list[str]:
    names = [str(attrs["label"]), *attrs.get("aliases", ())]
    names += [str(attrs[k]) for k in ("pid", "title") if attrs.get(k)]
    return names


def ego_view(
    graph: nx.DiGraph, focus: str, hops: int = 2, max_nodes: int = DEFAULT_MAX_NODES
) -> View:
    """The nodes within `hops` links of `focus` (nearest first when over `max_nodes`)."""
    import networkx as nx

    if hops < 1:
        raise InputError(f"--hops must be at least 1, not {hops}")
    center = find_node(graph, focus)
    distance = nx.single_source_shortest_path_length(graph.to_undirected(as_view=True), center,
                                                     cutoff=hops)
    ordered = sorted(
        distance,
        key=lambda n: (distance[n], -graph.degree(n), graph.nodes[n]["label"], n),
    )
    kept = ordered[:max_nodes]
    label = graph.nodes[center]["label"]
    note = f"The {_n(len(kept) - 1, 'node')} within {_n(hops, 'link')} of {label!r}."
    if len(kept) < len(ordered):
        note = (
            f"Showing the {len(kept):,} of {len(ordered):,} nodes within {_n(hops, 'link')} of "
            f"{label!r} nearest to it (most connected first); {len(ordered) - len(kept):,} left "
            "out — raise --max-nodes or lower --hops."
        )
    title = f"Neighbourhood of {label} ({_n(hops, 'hop')})"
    return View(graph.subgraph(kept).copy(), "ego", title, note, focus=center)


def concept_view(graph: nx.DiGraph, max_nodes: int = DEFAULT_MAX_NODES) -> View:
    """Concepts only; an edge's `weight` is the number of papers the two concepts share."""
    import networkx as nx

    papers, concepts = kinds(graph)
    chosen = rank_concepts(graph, concepts)[:max_nodes]
    chosen_set = set(chosen)
    weight: Counter[tuple[str, str]] = Counter()
    shared: dict[tuple[str, str], list[str]] = {}
    for paper in papers:
        linked = sorted(c for c in graph.successors(paper) if c in chosen_set)
        for i, a in enumerate(linked):
            for b in linked[i + 1:]:
                weight[(a, b)] += 1
                shared.setdefault((a, b), []).append(paper)
    pairs = sorted(weight, key=lambda ab: (-weight[ab], ab))
    limit = CONCEPT_EDGES_PER_NODE * max(1, len(chosen))
    backbone = len(pairs) > limit
    if backbone:
        pairs = _backbone(pairs, CONCEPT_BACKBONE_K)
    sub = nx.Graph()
    for concept in chosen:
        sub.add_node(concept, **graph.nodes[concept])
    for a, b in sorted(pairs):
        sub.add_edge(a, b, role="shared", weight=weight[(a, b)], papers=shared[(a, b)][:5])
    note = f"{_n(len(chosen), 'concept')}; a link's width is the number of papers both appear in."
    if len(chosen) < len(concepts):
        note += (f" Showing the {len(chosen):,} of {len(concepts):,} concepts with the most "
                 "papers — raise --max-nodes to see more.")
    if backbone:
        note += (f" Each concept keeps its {CONCEPT_BACKBONE_K} strongest links "
                 f"({len(pairs):,} of {len(weight):,} links shown).")
    return View(sub, "concepts", "paperkg concept map", note)


def _backbone(pairs: list[tuple[str, str]], k: int) -> list[tuple[str, str]]:
    """The union of each node's first `k` pairs (`pairs` is strongest first)."""
    per_node: Counter[str] = Counter()
    kept = []
    for a, b in pairs:
        if per_node[a] < k or per_node[b] < k:
            kept.append((a, b))
            per_node[a] += 1
            per_node[b] += 1
    return kept
