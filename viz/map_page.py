"""The map view's HTML: concepts only, coloured by community, sized by papers, laid out with
communities apart (`viz.map_layout`), labels that appear as one zooms, a mean-year overlay, a
year filter, community and concept panels, and exports (CSV, BibTeX, PNG).

It is a pyvis page like the others (`viz.page`): pyvis holds the nodes and edges, our template
(`assets/map.html.j2`) inlines vis-network, the CSS and the script, and a
Content-Security-Policy forbids any request. Strings reach the page as JSON and are inserted as
text.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from kg.namespaces import KG_IRI
from viz.map_layout import (
    DRAW_THRESHOLD,
    MAX_VISIBLE,
    community_layout,
    fit_scale,
    label_sizes,
)
from viz.map_model import MIN_PAPERS, PAPERS_PER_CONCEPT, MapModel
from viz.page import Page, _asset, _environment, safe_url, short
from viz.style import COMMUNITY_COLORS, OTHER_COMMUNITY, TYPE_COLORS, YEAR_RAMP, concept_size

if TYPE_CHECKING:
    import networkx as nx
    import pyoxigraph

LABEL_CHARS = 40
_TEMPLATE = "map.html.j2"


def render_map(model: MapModel, full: nx.DiGraph, store: pyoxigraph.Store, *,
               source_name: str, focus_url: str | None = None) -> Page:
    """The HTML of the map of `model` (paper details come from the whole graph `full`)."""
    from pyvis.network import Network

    concepts = model.concepts
    ids = {c: i for i, c in enumerate(concepts)}
    groups = [com.members for com in model.communities]
    loose = [c for c in concepts if c not in model.community_of]
    if loose:
        groups.append(loose)
    positions = community_layout(groups, model.links)
    sizes = [concept_size(full.nodes[c]["count"]) for c in concepts]
    points = [positions[c] for c in concepts]
    scale = fit_scale(points, sizes)
    labels = [short(str(full.nodes[c]["label"]), LABEL_CHARS) for c in concepts]
    fonts = label_sizes(labels, points, sizes, scale)
    all_years = sorted({y for counts in model.years.values() for y in counts})
    year_index = {y: i for i, y in enumerate(all_years)}
    papers = _PaperTable(full, store)

    net = Network(cdn_resources="in_line")
    for i, concept in enumerate(concepts):
        attrs = full.nodes[concept]
        counts = model.years[concept]
        community = model.community_of.get(concept, -1)
        total = sum(counts.values())
        record: dict[str, Any] = {
            "id": i,
            "label": labels[i],
            "name": attrs["label"],
            "iri": concept,
            "t": attrs["ctype"],
            "c": community,
            "n": attrs["count"],
            "yc": [[year_index[y], counts[y]] for y in sorted(counts)],
            "x": points[i][0],
            "y": points[i][1],
            "size": sizes[i],
            "font": {"size": fonts[i][0]},
            "tier": fonts[i][1],
            "color": _community_color(community),
        }
        if total:
            record["my"] = round(sum(y * k for y, k in counts.items()) / total, 2)
        newest = sorted(full.predecessors(concept),
                        key=lambda p: (-_year(full.nodes[p]), full.nodes[p]["label"], p))
        record["pp"] = [papers.ref(p) for p in newest[:PAPERS_PER_CONCEPT]]
        if attrs.get("aliases"):
            record["aliases"] = list(attrs["aliases"])
        net.nodes.append(record)
        net.node_ids.append(i)
        net.node_map[i] = record
    for a, b, shared in model.links:
        net.edges.append({"from": ids[a], "to": ids[b], "w": shared,
                          "width": round(min(6.0, 0.5 + 0.8 * math.sqrt(shared)), 2)})
    communities = [
        {"n": com.number, "label": com.label, "color": _community_color(i),
         "members": [ids[c] for c in com.members],
         "papers": [[papers.ref(p), k] for p, k in com.papers]}
        for i, com in enumerate(model.communities)
    ]
    net.options = _options()
    note = (f"The {len(concepts):,} concepts with the most papers (of {model.total_concepts:,}; "
            f"those in at least {MIN_PAPERS} papers), in {len(model.communities):,} communities "
            "of the co-occurrence network. Circle size: papers. Zoom in for more labels.")
    if model.computed:
        note += " Communities computed for this page: run `kg analyze` to keep them in the graph."
    page = {
        "title": "Map of the field",
        "source": source_name,
        "note": note,
        "years": all_years,
        "communities": communities,
        "types": {t: c for t, c in TYPE_COLORS.items()},
        "other": OTHER_COMMUNITY,
        "ramp": list(YEAR_RAMP),
        "scale": round(scale, 6),
        "threshold": DRAW_THRESHOLD,
        "focusUrl": focus_url,
    }
    env = _environment()
    env.globals.update(
        page_title=f"Map of the field — {source_name}",
        page=page,
        # Read by the page only when a panel lists papers: on the 35k-paper graph this table is
        # most of the page's 10 MB, and parsing it as script delayed the first frame.
        papers=papers.rows,
        vis_js=_asset("pyvis", "templates/lib/vis-9.1.2/vis-network.min.js"),
        page_js=_asset("viz", "assets/map.js"),
        page_css=_asset("viz", "assets/page.css") + _asset("viz", "assets/map.css"),
    )
    net.templateEnv = env
    net.path = _TEMPLATE
    html = net.generate_html(name="map.html")
    return Page(html, len(concepts), len(net.edges), False, note)


def _community_color(index: int) -> str:
    return COMMUNITY_COLORS[index] if 0 <= index < len(COMMUNITY_COLORS) else OTHER_COMMUNITY


def _year(attrs: dict[str, Any]) -> int:
    text = str(attrs.get("year", ""))[:4]
    return int(text) if text.isdigit() else 0


class _PaperTable:
    """Papers the page lists, numbered as first referenced: [title, year, id, url, authors,
    venue]."""

    def __init__(self, full: nx.DiGraph, store: pyoxigraph.Store) -> None:
        import pyoxigraph as ox

        self.full = full
        self.store = store
        self.author_list = ox.NamedNode(KG_IRI + "authorList")
        self.refs: dict[str, int] = {}
        self.rows: list[list[Any]] = []

    def ref(self, paper: str) -> int:
        found = self.refs.get(paper)
        if found is None:
            attrs = self.full.nodes[paper]
            found = self.refs[paper] = len(self.rows)
            self.rows.append([attrs["label"], attrs.get("year"), attrs.get("pid"),
                              safe_url(attrs.get("url")), self._authors(paper),
                              attrs.get("venue")])
        return found


    def _authors(self, paper: str) -> str | None:
        import pyoxigraph as ox

        found = sorted(str(getattr(q.object, "value", "")) for q in self.store.quads_for_pattern(
            ox.NamedNode(paper), self.author_list, None, None))
        return found[0] if found else None


def _options() -> dict[str, Any]:
    return {
        "nodes": {
            "shape": "dot", "borderWidth": 1,
            "font": {"face": "system-ui, sans-serif", "color": "#17202A",
                     "strokeWidth": 3, "strokeColor": "#FBFCFC"},
            "scaling": {"label": {"enabled": False, "drawThreshold": DRAW_THRESHOLD,
                                  "maxVisible": MAX_VISIBLE}},
        },
        "edges": {"smooth": False, "color": {"color": "#AAB7B8", "opacity": 0.3},
                  "selectionWidth": 1},
        "layout": {"improvedLayout": False},
        "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": True,
                        "hideEdgesOnZoom": True, "keyboard": False},
        "physics": {"enabled": False},
    }
