"""The query page served at `/`: one HTML file with its CSS and JavaScript (page.js, plain
JavaScript written for it: highlighting, completion, PREFIX lines, a sortable, filterable,
paged result table) inlined — no CDN, no library, nothing fetched but from the server.

The named queries and the prefixes are embedded in the page as JSON, so it needs no request
before it can show them; the terms it completes come from `/vocabulary`.
"""

from __future__ import annotations

import html
import json
from importlib import resources

from kg.namespaces import DEFAULT_BASE, PREFIXES


def render_page(description: str) -> bytes:
    """The page's HTML for a server whose source is `description`."""
    from kg.query import named as queries

    here = resources.files(__package__)
    template = here.joinpath("page.html").read_text(encoding="utf-8")
    script = here.joinpath("page.js").read_text(encoding="utf-8")
    listing = [q.as_json() for q in queries.all_queries()]
    page = (
        template.replace("/*SCRIPT*/", script)
        .replace("{{SOURCE}}", html.escape(description))
        .replace("/*QUERIES*/null", _script_json(listing))
        .replace("/*PREFIXES*/null", _script_json({"": DEFAULT_BASE, **PREFIXES}))
    )
    return page.encode("utf-8")


def _script_json(value: object) -> str:
    """JSON that is safe inside a <script> element (no `</script>` can end it early)."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
