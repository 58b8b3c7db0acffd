"""The query page served at `/`: one HTML file with its CSS and JavaScript inlined (no CDN).

The named queries are embedded in the page as JSON, so it needs no request before it can
show them.
"""

from __future__ import annotations

import html
import json
from importlib import resources

from kg.namespaces import DEFAULT_BASE, PREFIXES


def render_page(description: str) -> bytes:
    """The page's HTML for a server whose source is `description`."""
    from kg.query import named as queries

    template = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
    listing = [q.as_json() for q in queries.all_queries()]
    page = (
        template.replace("{{SOURCE}}", html.escape(description))
        .replace("/*QUERIES*/null", _script_json(listing))
        .replace("/*PREFIXES*/null", _script_json({"": DEFAULT_BASE, **PREFIXES}))
    )
    return page.encode("utf-8")


def _script_json(value: object) -> str:
    """JSON that is safe inside a <script> element (no `</script>` can end it early)."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
