"""A named query's result as a view: the papers and concepts it returns, and their links.

The query runs through the query layer (`kg.query.run_named`, parameters bound by the query's
header, never pasted). Every IRI in the result that names a paper or a concept becomes a node
(an evidence or sentence IRI, `B paper/ID/evidence/...`, stands for its paper); the view draws
the links the graph has between them, plus any other predicate a CONSTRUCT result states
between two drawn nodes. A result of concepts alone is drawn as a concept map (concepts linked
by the papers they share).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pyoxigraph as ox

from kg.errors import QueryError
from kg.namespaces import KG_IRI
from kg.query import open_source, run_named
from viz.style import ROLE_ORDER
from viz.views import View, concept_view, kinds

if TYPE_CHECKING:
    import networkx as nx

_LINK_PREDICATES = {KG_IRI + r for r in ROLE_ORDER}


def query_view(
    full: nx.DiGraph,
    store: ox.Store,
    name: str,
    params: Mapping[str, str],
    max_nodes: int,
) -> View:
    """The subgraph the named query `name` returns (at most `max_nodes` nodes, first found
    first)."""
    result = run_named(open_source(store), name, dict(params))
    found: dict[str, None] = {}
    extra_edges: list[tuple[str, str, str]] = []
    if result.is_graph:
        for triple in result.triples:
            ends = [_node_of(full, t.value) for t in (triple.subject, triple.object)
                    if isinstance(t, ox.NamedNode)]
            for node in ends:
                if node is not None:
                    found.setdefault(node)
            predicate = triple.predicate.value
            if len(ends) == 2 and None not in ends and predicate not in _LINK_PREDICATES:
                extra_edges.append((str(ends[0]), str(ends[1]), _local(predicate)))
    elif result.form == "SELECT":
        for row in result.rows:
            for term in row:
                if isinstance(term, ox.NamedNode):
                    node = _node_of(full, term.value)
                    if node is not None:
                        found.setdefault(node)
    else:
        raise QueryError(f"query {name!r} is an {result.form} query: it has no graph to draw; "
                         "use `kg query` for its answer")
    shown = _describe(name, params)
    if not found:
        raise QueryError(f"{shown} returned {len(result)} result(s) but no paper or concept to "
                         "draw; check the parameters with `kg query`")
    nodes = list(found)[:max_nodes]
    note = f"The {_count(full, nodes)} that {shown} returns."
    if len(nodes) < len(found):
        note = (f"The first {len(nodes):,} of the {len(found):,} nodes {shown} returns — "
                "raise --max-nodes to see all.")
    papers, _ = kinds(full, nodes)
    if not papers:
        concept_map = concept_view(full.subgraph(_with_papers(full, nodes)).copy(), len(nodes))
        return View(concept_map.graph, "query", f"Query: {shown}", note)
    sub = full.subgraph(nodes).copy()
    for u, v, predicate in extra_edges:
        if u in sub and v in sub and u != v and not sub.has_edge(u, v):
            sub.add_edge(u, v, role="query", predicate=predicate)
    return View(sub, "query", f"Query: {shown}", note)


def _node_of(full: nx.DiGraph, iri: str) -> str | None:
    """The paper or concept `iri` names (evidence and sentence IRIs name their paper)."""
    if iri in full:
        return iri
    for part in ("/evidence/", "/sentence/"):
        if part in iri:
            paper = iri.split(part, 1)[0]
            return paper if paper in full else None
    return None


def _with_papers(full: nx.DiGraph, concepts: list[str]) -> list[str]:
    """`concepts` and every paper linked to two or more of them (to weigh the concept map)."""
    chosen = set(concepts)
    papers = {p for c in concepts for p in full.predecessors(c)}
    return concepts + sorted(p for p in papers if len(chosen & set(full.successors(p))) >= 2)


def _describe(name: str, params: Mapping[str, str]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))
    return f"{name}({args})"


def _count(full: nx.DiGraph, nodes: list[str]) -> str:
    papers, concepts = kinds(full, nodes)
    parts = [f"{len(x):,} {w}{'' if len(x) == 1 else 's'}"
             for x, w in ((papers, "paper"), (concepts, "concept")) if x]
    return " and ".join(parts)


def _local(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
