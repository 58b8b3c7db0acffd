"""What the map view draws: the concepts with the most papers, their communities, years and
strongest links, and the papers the page lists (VOSviewer's term map, from a paperkg graph).

Communities, link strengths and PageRank come from the graph when `kg analyze` has written them
(docs/VOCABULARY.md, "Analytics"); otherwise they are computed here with the same functions
(`kg.analyze`) and the page says so.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.analyze.centrality import pagerank
from kg.analyze.communities import community_label, find_communities
from kg.analyze.config import AnalyzeConfig
from kg.analyze.cooccurrence import cooccurrence_network
from kg.analyze.incidence import Incidence
from kg.namespaces import KG_IRI, RDFS_IRI
from viz.load import select
from viz.views import kinds

if TYPE_CHECKING:
    import networkx as nx
    import pyoxigraph

#: Concepts the map draws by default (the issue's target: 2,000 stays interactive in ~1 s).
DEFAULT_MAP_NODES = 2000
#: Concepts in fewer papers stay off the map, as they stay out of the co-occurrence network
#: (`kg.analyze.AnalyzeConfig.min_papers`; VOSviewer's minimum number of occurrences).
MIN_PAPERS = 2
#: Links drawn per concept: its strongest, by papers shared.
LINKS_PER_CONCEPT = 3
#: Papers the page lists per concept and per community (the newest, the most linked).
PAPERS_PER_CONCEPT = 100
PAPERS_PER_COMMUNITY = 100

_Q_COMMUNITIES = f"""
SELECT ?c ?community ?label WHERE {{
  ?c <{KG_IRI}inCommunity> ?community .
  ?community <{RDFS_IRI}label> ?label .
}}"""


@dataclass(slots=True)
class MapCommunity:
    """A community as drawn: its number in the graph (1 = largest), label and map members."""

    number: int
    label: str
    members: list[str]
    papers: list[tuple[str, int]] = field(default_factory=list)  # (paper, map members it links)


@dataclass(slots=True)
class MapModel:
    """The map's concepts (most papers first), communities (largest on the map first), the
    links between concepts with the papers they share, and each concept's papers by year."""

    concepts: list[str]
    communities: list[MapCommunity]
    community_of: dict[str, int]  # concept -> index into `communities`
    links: list[tuple[str, str, int]]
    years: dict[str, Counter[int]]
    computed: bool  # communities computed for the page (the graph had no analysis)
    total_concepts: int


def map_model(graph: nx.DiGraph, store: pyoxigraph.Store, max_nodes: int) -> MapModel:
    """The model of the map of the `max_nodes` concepts with the most papers."""
    _, all_concepts = kinds(graph)
    eligible = [c for c in all_concepts if graph.nodes[c]["count"] >= MIN_PAPERS]
    chosen = sorted(eligible, key=lambda c: (-graph.nodes[c]["count"],
                                             graph.nodes[c]["label"], c))[:max_nodes]
    chosen_set = set(chosen)
    found: dict[str, tuple[str, str]] = {}
    for row in select(store, _Q_COMMUNITIES):
        found[str(row["c"])] = (str(row["community"]), str(row["label"]))
    computed = not found
    if computed:
        found = _computed_communities(graph)
    groups: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for concept in chosen:
        if concept in found:
            iri, label = found[concept]
            groups.setdefault(iri, []).append(concept)
            labels[iri] = label
    ordered = sorted(groups, key=lambda k: (-len(groups[k]), _number(k), k))
    communities = [MapCommunity(_number(k), labels[k], groups[k]) for k in ordered]
    community_of = {c: i for i, com in enumerate(communities) for c in com.members}
    years: dict[str, Counter[int]] = {}
    shared: Counter[tuple[str, str]] = Counter()
    linking: list[Counter[str]] = [Counter() for _ in communities]
    for concept in chosen:
        years[concept] = Counter(
            y for p in graph.predecessors(concept) if (y := _year(graph.nodes[p])) is not None
        )
    for paper in sorted({p for c in chosen for p in graph.predecessors(c)}):
        linked = sorted(c for c in graph.successors(paper) if c in chosen_set)
        for i, a in enumerate(linked):
            for b in linked[i + 1:]:
                shared[(a, b)] += 1
        for concept in linked:
            if concept in community_of:
                linking[community_of[concept]][paper] += 1
    for community, counts in zip(communities, linking, strict=True):
        community.papers = sorted(counts.items(), key=lambda pc: (-pc[1], pc[0]))[
            :PAPERS_PER_COMMUNITY]
    return MapModel(chosen, communities, community_of, _strongest(shared, graph), years,
                    computed, len(all_concepts))


def _strongest(shared: Counter[tuple[str, str]], graph: nx.DiGraph) -> list[tuple[str, str, int]]:
    """Each concept's `LINKS_PER_CONCEPT` strongest links (most shared papers; ties: the
    stronger association, i.e. the rarer partner), merged."""
    per: dict[str, list[tuple[float, str, tuple[str, str]]]] = {}
    for (a, b), n in shared.items():
        association = n / math.sqrt(graph.nodes[a]["count"] * graph.nodes[b]["count"])
        per.setdefault(a, []).append((-n - association, b, (a, b)))
        per.setdefault(b, []).append((-n - association, a, (a, b)))
    kept: set[tuple[str, str]] = set()
    for concept in sorted(per):
        for _, _, pair in sorted(per[concept])[:LINKS_PER_CONCEPT]:
            kept.add(pair)
    return [(a, b, shared[(a, b)]) for a, b in sorted(kept)]


def _computed_communities(graph: nx.DiGraph) -> dict[str, tuple[str, str]]:
    """Communities of the whole graph as `kg analyze` would find them (not stored)."""
    papers, concepts = kinds(graph)
    papers, concepts = sorted(papers), sorted(concepts)
    number = {c: j for j, c in enumerate(concepts)}
    inc = Incidence(
        papers, concepts,
        [sorted(number[c] for c in graph.successors(p)) for p in papers],
        [None] * len(papers),
        [str(graph.nodes[c]["label"]) for c in concepts],
    )
    config = AnalyzeConfig()
    network = cooccurrence_network(inc, min_papers=config.min_papers)
    _, rank = pagerank(inc)
    found: dict[str, tuple[str, str]] = {}
    for community in find_communities(network.nodes.tolist(), network.links, seed=config.seed,
                                      key=inc.concepts.__getitem__,
                                      backbone_links=config.community_links,
                                      iterations=config.leiden_iterations):
        label = community_label(community.members, inc.labels, rank, config.label_concepts)
        for member in community.members:
            found[concepts[member]] = (f"community/{community.number}", label)
    return found


def _number(iri: str) -> int:
    tail = iri.rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _year(attrs: dict[str, Any]) -> int | None:
    text = str(attrs.get("year", ""))[:4]
    return int(text) if len(text) == 4 and text.isdigit() else None
