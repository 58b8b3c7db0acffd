"""`render_html`: a graph source in, an offline HTML page out (the one call the CLI, `kg build
--html` and `kg serve` make)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from kg.errors import InputError
from kg.rdf.serialize import write_atomically
from viz.load import GraphSource, load_details, load_graph, open_store
from viz.map_model import DEFAULT_MAP_NODES, map_model
from viz.map_page import render_map
from viz.page import Page, render_page
from viz.query import query_view
from viz.views import DEFAULT_MAX_NODES, View, concept_view, ego_view, kinds, whole_view

VIEWS = ("whole", "ego", "concepts", "query", "map")


def build_page(
    graph_source: GraphSource,
    *,
    view: str = "whole",
    max_nodes: int | None = None,
    focus: str | None = None,
    hops: int = 2,
    query: str | None = None,
    params: Mapping[str, str] | None = None,
    physics: bool | None = None,
    source_name: str | None = None,
    focus_url: str | None = None,
) -> Page:
    """Render one view of `graph_source` and say what it drew (see `render_html`)."""
    if max_nodes is None:
        max_nodes = DEFAULT_MAP_NODES if view == "map" else DEFAULT_MAX_NODES
    if max_nodes < 1:
        raise InputError(f"--max-nodes must be at least 1, not {max_nodes}")
    if focus is not None and view == "whole":
        view = "ego"
    if query is not None and view == "whole":
        view = "query"
    if view not in VIEWS:
        raise InputError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    store = open_store(graph_source)
    full = load_graph(store)
    if full.number_of_nodes() == 0:
        raise InputError("the graph has no papers or concepts (docs/VOCABULARY.md); is it a "
                         "paperkg graph?", source=_name(graph_source, source_name))
    if view == "map":
        model = map_model(full, store, max_nodes)
        return render_map(model, full, store, source_name=_name(graph_source, source_name),
                          focus_url=focus_url)
    chosen: View
    if view == "ego":
        if not focus:
            raise InputError("the ego view needs --focus LABEL")
        chosen = ego_view(full, focus, hops, max_nodes)
    elif view == "concepts":
        chosen = concept_view(full, max_nodes)
    elif view == "query":
        if not query:
            raise InputError("the query view needs --query NAME")
        chosen = query_view(full, store, query, dict(params or {}), max_nodes)
    else:
        chosen = whole_view(full, max_nodes)
    papers, _ = kinds(full, chosen.graph.nodes)
    # Concept-map edges cite up to 5 shared papers each; only drawn papers carry details.
    details = load_details(store, papers)
    return render_page(chosen, full, details, source_name=_name(graph_source, source_name),
                       physics=physics)


def render_html(
    graph_source: GraphSource,
    out_path: str | os.PathLike[str] | None = None,
    *,
    view: str = "whole",
    max_nodes: int | None = None,
    focus: str | None = None,
    hops: int = 2,
    query: str | None = None,
    params: Mapping[str, str] | None = None,
    physics: bool | None = None,
    source_name: str | None = None,
    focus_url: str | None = None,
) -> str | Path:
    """An interactive, offline HTML page of a paperkg graph.

    `graph_source`: a graph file (.ttl, .nt, .nq, .trig, …), an Oxigraph store directory, a
    pyoxigraph `Store`, an rdflib `Graph` or an iterable of pyoxigraph triples.
    `view`: "whole" (the most connected `max_nodes` nodes), "ego" (`focus` and everything within
    `hops` links; implied by `focus`), "concepts" (concepts linked by shared papers) or "query"
    (the papers and concepts the named query `query` returns with `params`; implied by `query`)
    or "map" (the `max_nodes` concepts with the most papers, default 2,000, coloured by
    community: `viz.map_page`; `focus_url` + a concept IRI is where its "open in focus view"
    goes, else the page focuses in place). `max_nodes` defaults to 300 for the other views.
    `physics`: let vis-network's simulation relax the layout before the first draw; default on
    up to `viz.page.PHYSICS_MAX_NODES` nodes (positions always come from `viz.layout`).

    Returns the HTML text, or — with `out_path` — writes it there (UTF-8, through a temporary
    file renamed into place) and returns the path. Raises `kg.errors.InputError` (unreadable
    source, unknown focus), `QueryError`, or `KGError` (the page cannot be written).
    """
    page = build_page(graph_source, view=view, max_nodes=max_nodes, focus=focus, hops=hops,
                      query=query, params=params, physics=physics, source_name=source_name,
                      focus_url=focus_url)
    if out_path is None:
        return page.html
    path = Path(out_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, page.html, "the page")  # a kill or a full disk keeps the old page
    return path


def _name(source: GraphSource, given: str | None) -> str:
    if given:
        return given
    if isinstance(source, str | os.PathLike):
        return Path(source).name
    return "graph"
