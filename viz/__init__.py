"""The browser view of a paperkg graph: an interactive pyvis page that works offline.

>>> from viz import render_html
>>> html = render_html("tests/fixtures/viz_graph.ttl")  # doctest: +SKIP

`render_html(source, out_path=None, *, view="whole", max_nodes=300, focus=None, hops=2,
query=None, params=None, physics=None)` is the entry point (see `viz.render`); the modules are
`load` (RDF → networkx), `views` (which nodes to draw), `layout` (positions), `page` (pyvis +
the inlined template) and `query` (a named query's result as a view). networkx and pyvis are
imported when a function needs them.
"""

from __future__ import annotations

from viz.render import build_page, render_html

__all__ = ["build_page", "render_html"]
