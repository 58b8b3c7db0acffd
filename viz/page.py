"""The HTML page: pyvis holds the nodes and edges, our Jinja template makes it offline.

pyvis's own template loads Bootstrap (and, unless `in_line`, vis-network) from CDNs, so we give
its `Network` our template (`assets/page.html.j2`) through its template environment: vis-network
(shipped inside pyvis), our CSS and our JS are inlined, and a Content-Security-Policy forbids
the page any request at all. Every string from the graph reaches the page as JSON (`tojson`
escapes `<`, `>`, `&` and `'`) and the page script inserts it with `textContent`, never as HTML.

Nodes get small integer ids (IRIs are long and repeated in every link list); `KG_PAGE.extra`
names the papers and concepts the details panel lists but the view does not draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from viz.layout import compute_layout
from viz.load import Details
from viz.style import (
    CONCEPT_SHAPE,
    PAPER,
    PAPER_SHAPE,
    PAPER_SIZE,
    ROLE_ORDER,
    ROLE_STYLES,
    TYPE_COLORS,
    TYPE_ORDER,
    concept_size,
)
from viz.views import View

if TYPE_CHECKING:
    import networkx as nx

#: Up to this many nodes, vis-network's physics relaxes the layout computed by `viz.layout` for
#: `RELAX_ITERATIONS` steps before the first draw, then stops; above it the page draws the
#: computed layout at once, with straight edges and no arrows (STACK_NOTES: smooth edges and
#: simulation are what make big pages slow). The page's switch runs the simulation live.
PHYSICS_MAX_NODES = 500
RELAX_ITERATIONS = 120
#: Longest list of papers (or concepts) the details panel of one node carries.
DETAILS_MAX = 300
#: Evidence sentences kept per link (the hover shows them; the rest are counted).
EVIDENCE_MAX = 3
ABSTRACT_CHARS = 600
LABEL_CHARS = {"concept": 40, "paper": 32}

_ROLE_NAMES: tuple[str, ...] = (*ROLE_ORDER, "shared", "query")
_ROLE_INDEX = {name: i for i, name in enumerate(_ROLE_NAMES)}
_TEMPLATE = "page.html.j2"


@dataclass(frozen=True, slots=True)
class Page:
    """A rendered page and what it draws."""

    html: str
    nodes: int
    edges: int
    physics: bool
    note: str


def safe_url(url: str | None) -> str | None:
    """`url` if it is an http(s) URL, else None: a `javascript:` link must never become a href.

    >>> safe_url("https://openreview.net/forum?id=x"), safe_url("javascript:alert(1)")
    ('https://openreview.net/forum?id=x', None)
    """
    if not url:
        return None
    return url if urlsplit(url.strip()).scheme.lower() in ("http", "https") else None


def short(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, with an ellipsis.

    >>> short("Long Question Coreference Adaptation", 20)
    'Long Question …'
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(" ,;:-") + " …"


def render_page(
    view: View,
    full: nx.DiGraph,
    details: Details,
    *,
    source_name: str,
    physics: bool | None = None,
) -> Page:
    """The HTML of `view` (node details and links come from the whole graph `full`)."""
    from pyvis.network import Network

    graph = view.graph
    order = sorted(graph.nodes, key=lambda n: (graph.nodes[n]["kind"], graph.nodes[n]["label"], n))
    ids = _Ids(full, order)
    positions = compute_layout(graph)
    use_physics = len(order) <= PHYSICS_MAX_NODES if physics is None else physics

    net = Network(directed=graph.is_directed(), cdn_resources="in_line")
    # Filled directly: `add_node`/`add_edge` scan every node per call (quadratic, STACK_NOTES).
    for node in order:
        record = _node_record(node, full, ids, details)
        record["x"], record["y"] = positions[node]
        net.nodes.append(record)
        net.node_ids.append(record["id"])
        net.node_map[record["id"]] = record
    for u, v in sorted(graph.edges, key=lambda e: (ids.ref(e[0]), ids.ref(e[1]))):
        net.edges.append(_edge_record(u, v, graph.edges[u, v], ids, details))
    net.options = _vis_options(
        use_physics, big=len(order) > PHYSICS_MAX_NODES, arrows=graph.is_directed()
    )

    env = _environment()
    env.globals.update(
        page_title=f"{view.title} — {source_name}",
        page=_page_data(view, source_name, order, net.edges, ids.extra, use_physics, full),
        vis_js=_asset("pyvis", "templates/lib/vis-9.1.2/vis-network.min.js"),
        page_js=_asset("viz", "assets/page.js"),
        page_css=_asset("viz", "assets/page.css"),
    )
    net.templateEnv = env
    net.path = _TEMPLATE
    html = net.generate_html(name="graph.html")
    return Page(html, len(order), len(net.edges), use_physics, view.note)


def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader

    folder = resources.files("viz") / "assets"
    env = Environment(loader=FileSystemLoader(str(folder)), autoescape=True)
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    return env


def _asset(package: str, path: str) -> Any:
    """A JS/CSS file's text, marked safe for the template; refuses text that would end its
    `<script>`/`<style>` element early."""
    from markupsafe import Markup

    text = (resources.files(package) / path).read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise ValueError(f"{package}/{path} contains a closing script/style tag; cannot inline it")
    return Markup(text)


class _Ids:
    """Page ids: drawn nodes are 0..n-1 in page order; nodes referenced but not drawn get the
    next ids and a row in `extra` (label, type, URL) so the details panel can name them."""

    def __init__(self, full: nx.DiGraph, drawn: list[str]) -> None:
        self.full = full
        self.ids = {node: i for i, node in enumerate(drawn)}
        self.extra: list[list[Any]] = []

    def ref(self, node: str) -> int:
        if node not in self.ids:
            self.ids[node] = len(self.ids)
            attrs = self.full.nodes[node]
            kind = PAPER if attrs["kind"] == "paper" else attrs["ctype"]
            self.extra.append([attrs["label"], kind, safe_url(attrs.get("url"))])
        return self.ids[node]


def _node_record(node: str, full: nx.DiGraph, ids: _Ids, details: Details) -> dict[str, Any]:
    attrs = full.nodes[node]
    kind = attrs["kind"]
    record: dict[str, Any] = {
        "id": ids.ref(node),
        "iri": node,
        "label": short(attrs["label"], LABEL_CHARS[kind]),
        "name": attrs["label"],
        "group": PAPER if kind == "paper" else attrs["ctype"],
        "n": attrs["count"],
    }
    if kind == "concept":
        record["size"] = concept_size(attrs["count"])
        if attrs["aliases"]:
            record["aliases"] = list(attrs["aliases"])
        neighbours = [(full.edges[p, node], p) for p in full.predecessors(node)]
    else:
        record["pid"] = attrs.get("pid")
        for key in ("year", "venue"):
            if attrs.get(key):
                record[key] = attrs[key]
        if attrs.get("snippet"):
            record["abstract"] = short(attrs["snippet"], ABSTRACT_CHARS)
        for key, value in (("url", attrs.get("url")), ("code", details.code.get(node))):
            if safe_url(value):
                record[key] = value
        if node in details.authors:
            record["authors"] = details.authors[node]
        neighbours = [(full.edges[node, c], c) for c in full.successors(node)]
    neighbours.sort(key=lambda ec: (_ROLE_INDEX[ec[0]["role"]], full.nodes[ec[1]]["label"], ec[1]))
    record["links"] = [[_ROLE_INDEX[edge["role"]], ids.ref(other)]
                       for edge, other in neighbours[:DETAILS_MAX]]
    if len(neighbours) > DETAILS_MAX:
        record["more"] = len(neighbours) - DETAILS_MAX
    return record


def _edge_record(
    u: str, v: str, attrs: dict[str, Any], ids: _Ids, details: Details
) -> dict[str, Any]:
    record: dict[str, Any] = {"from": ids.ref(u), "to": ids.ref(v), "r": _ROLE_INDEX[attrs["role"]]}
    if attrs["role"] == "shared":
        record["w"] = attrs["weight"]
        record["width"] = round(min(8.0, 0.6 + 1.2 * math.sqrt(attrs["weight"] - 1)), 2)
        record["sp"] = [ids.ref(p) for p in attrs["papers"]]
        return record
    if attrs["role"] == "query":
        record["pred"] = attrs["predicate"]
        return record
    evidence = details.evidence.get((u, v), [])
    if evidence:
        record["ev"] = [[e.context, e.mark_start, e.mark_end, e.field]
                        for e in evidence[:EVIDENCE_MAX]]
        record["nev"] = len(evidence)
    if attrs.get("keyword"):
        record["kw"] = 1
    return record


def _vis_options(physics: bool, *, big: bool, arrows: bool) -> dict[str, Any]:
    """vis-network options; node looks come from one group per type (`style.TYPE_COLORS`)."""
    groups: dict[str, dict[str, Any]] = {}
    for name in TYPE_ORDER:
        color = TYPE_COLORS[name]
        is_paper = name == PAPER
        groups[name] = {
            "shape": PAPER_SHAPE if is_paper else CONCEPT_SHAPE,
            "color": {"background": color, "border": "#1B2631",
                      "highlight": {"background": color, "border": "#000000"},
                      "hover": {"background": color, "border": "#000000"}},
            "font": {"size": 11 if is_paper else 14, "color": "#4D5656" if is_paper else "#17202A"},
        }
        if is_paper:
            groups[name]["size"] = PAPER_SIZE
    return {
        "groups": groups,
        "nodes": {"borderWidth": 1, "font": {"face": "system-ui, sans-serif"}},
        "edges": {
            "smooth": False if big else {"enabled": True, "type": "continuous", "roundness": 0.2},
            "arrows": {"to": {"enabled": arrows and not big, "scaleFactor": 0.4}},
            "selectionWidth": 2,
            "hoverWidth": 1,
        },
        "layout": {"improvedLayout": False, "randomSeed": 7},
        "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": big,
                        "hideEdgesOnZoom": big, "keyboard": False},
        "physics": {
            "enabled": physics,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -40, "centralGravity": 0.004,
                                 "springLength": 70, "springConstant": 0.06,
                                 "avoidOverlap": 0.2},
            "stabilization": {"enabled": physics, "iterations": RELAX_ITERATIONS,
                              "updateInterval": 40, "fit": True},
            "minVelocity": 0.75,
        },
    }


def _page_data(
    view: View,
    source_name: str,
    order: list[str],
    edges: list[dict[str, Any]],
    extra: list[list[Any]],
    physics: bool,
    full: nx.DiGraph,
) -> dict[str, Any]:
    graph = view.graph
    type_counts: dict[str, int] = {}
    for node in order:
        attrs = graph.nodes[node]
        name = PAPER if attrs["kind"] == "paper" else attrs["ctype"]
        type_counts[name] = type_counts.get(name, 0) + 1
    role_counts: dict[str, int] = {}
    for edge in edges:
        name = _ROLE_NAMES[edge["r"]]
        role_counts[name] = role_counts.get(name, 0) + 1
    papers = sum(1 for _, a in full.nodes(data=True) if a["kind"] == "paper")
    return {
        "title": view.title,
        "source": source_name,
        "view": view.kind,
        "note": view.note,
        "focus": order.index(view.focus) if view.focus in order else None,
        "physics": physics,
        "big": len(order) > PHYSICS_MAX_NODES,
        "drawn": len(order),
        "total": {"papers": papers, "concepts": full.number_of_nodes() - papers},
        "extra": extra,
        "roleNames": list(_ROLE_NAMES),
        "types": [
            {"name": t, "color": TYPE_COLORS[t], "shape": PAPER_SHAPE if t == PAPER else "dot",
             "count": type_counts[t]}
            for t in TYPE_ORDER if t in type_counts
        ],
        "roles": [
            {"name": r, "legend": s.legend, "color": s.color, "width": s.width,
             "dashes": list(s.dashes) if isinstance(s.dashes, tuple) else s.dashes,
             "count": role_counts.get(r, 0)}
            for r, s in ROLE_STYLES.items()
        ],
    }
