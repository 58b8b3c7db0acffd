"""The HTTP side of `kg serve`: SPARQL 1.1 Protocol at /sparql, named queries at
/queries/NAME, the query page at /, the browser view at /graph. Read-only.

Built on the standard library's `http.server` (no framework needed for six routes); the
queries themselves run in worker processes (`workers.WorkerPool`).
"""

from __future__ import annotations

import json
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kg.errors import QueryError
from kg.query.sparql_text import query_form, tokens
from kg.server import negotiate
from kg.server.pages import PageCache, served_path, source_version
from kg.server.workers import Reply, Task, WorkerPool, text_reply

CORS_HEADERS = (
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type, Accept"),
    ("Access-Control-Expose-Headers", "X-Paperkg-Truncated, X-Paperkg-Row-Cap"),
    ("Access-Control-Max-Age", "86400"),
)
READ_ONLY = "this endpoint is read-only: SPARQL updates are refused (load data with `kg load`)"
UNSUPPORTED_PARAMS = ("default-graph-uri", "named-graph-uri")


class SparqlServer(ThreadingHTTPServer):
    """An HTTP server with the worker pool, settings and page the handler needs."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], pool: WorkerPool, config: Any, page: bytes):
        super().__init__(address, SparqlHandler)
        self.pool = pool
        self.config = config
        self.page = page
        path = served_path(getattr(config, "source", None), getattr(config, "store", None))
        self.pages = PageCache(lambda: source_version(path))


class SparqlHandler(BaseHTTPRequestHandler):
    """One request: route it, check it, hand the query to a worker, send the reply."""

    server: SparqlServer
    server_version = "paperkg"

    # --- routing -------------------------------------------------------------------------
    def do_OPTIONS(self) -> None:
        self._send(Reply(HTTPStatus.NO_CONTENT, "text/plain", b""))

    def do_GET(self) -> None:
        path, query = self._split()
        if path == "/":
            self._send(Reply(200, "text/html; charset=utf-8", self.server.page))
        elif path == "/health":
            self._send(text_reply(200, f"ok: {self.server.pool.description}"))
        elif path == "/queries":
            self._send(Reply(200, "application/json", _queries_json()))
        elif path.startswith("/queries/"):
            self._named(path.removeprefix("/queries/"), query)
        elif path == "/sparql":
            self._protocol_get(query)
        elif path == "/graph":
            self._graph(query)
        elif path == "/update":
            self._send(text_reply(403, READ_ONLY))
        else:
            self._send(text_reply(404, f"no such page {path!r}: try / or /sparql"))

    def do_POST(self) -> None:
        path, query = self._split()
        if path == "/update":
            self._send(text_reply(403, READ_ONLY))
        elif path != "/sparql":
            self._send(text_reply(404 if path != "/" else 405, f"POST is for /sparql, not {path}"))
        else:
            self._protocol_post(query)

    def _refuse_write(self) -> None:
        self._send(text_reply(405, READ_ONLY), extra=(("Allow", "GET, POST, OPTIONS"),))

    do_PUT = do_DELETE = do_PATCH = _refuse_write

    # --- the SPARQL 1.1 Protocol ---------------------------------------------------------
    def _protocol_get(self, params: dict[str, list[str]]) -> None:
        if "update" in params:
            return self._send(text_reply(403, READ_ONLY))
        texts = params.get("query", [])
        if len(texts) != 1:
            return self._send(text_reply(400, "give exactly one query= parameter"))
        self._sparql(texts[0], params)

    def _protocol_post(self, params: dict[str, list[str]]) -> None:
        body = self._body()
        if body is None:
            return
        content_type = self.headers.get_content_type()
        if content_type == "application/sparql-update":
            return self._send(text_reply(403, READ_ONLY))
        if content_type == "application/sparql-query":
            text = body.decode("utf-8", "replace")
        elif content_type == "application/x-www-form-urlencoded":
            form = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
            if "update" in form:
                return self._send(text_reply(403, READ_ONLY))
            texts = form.get("query", [])
            if len(texts) != 1:
                return self._send(text_reply(400, "give exactly one query= form field"))
            text = texts[0]
            params = {**params, **form}
        else:
            return self._send(
                text_reply(
                    415,
                    f"unsupported Content-Type {content_type!r}: use application/sparql-query or "
                    "application/x-www-form-urlencoded",
                )
            )
        self._sparql(text, params)

    def _sparql(self, text: str, params: dict[str, list[str]]) -> None:
        for name in UNSUPPORTED_PARAMS:
            if name in params:
                return self._send(text_reply(400, f"{name} is not supported by this endpoint"))
        try:
            form = query_form(text)
        except QueryError as exc:
            # An update sent as a query: say it is refused rather than malformed.
            status = 403 if _looks_like_update(text) else 400
            return self._send(text_reply(status, READ_ONLY if status == 403 else str(exc)))
        # SERVICE and FROM are refused by the worker, from the parsed query (`kg.query.safety`).
        fmt = self._format(params, graph=form in ("CONSTRUCT", "DESCRIBE"))
        if fmt is not None:
            self._run(Task("sparql", text, fmt=fmt.value, max_rows=self.server.config.max_rows))

    def _named(self, name: str, params: dict[str, list[str]]) -> None:
        from kg.query import named as queries

        try:
            named = queries.get(urllib.parse.unquote(name))
        except QueryError as exc:
            return self._send(text_reply(404, str(exc)))
        fmt = self._format(params, graph=named.form in ("CONSTRUCT", "DESCRIBE"))
        if fmt is None:
            return
        values = tuple((k, v[-1]) for k, v in sorted(params.items()) if k != "format")
        self._run(Task("named", named.name, values, fmt.value, self.server.config.max_rows))

    def _graph(self, params: dict[str, list[str]]) -> None:
        values = tuple((k, v[-1]) for k, v in sorted(params.items()))
        # Built once per request and source, rebuilt when the graph file or store changes.
        reply = self.server.pages.get(values, lambda: self.server.pool.run(Task("graph",
                                                                                 params=values)))
        self._send(reply)

    # --- helpers -----------------------------------------------------------------------------
    def _format(
        self, params: dict[str, list[str]], *, graph: bool
    ) -> negotiate.ResultFormat | None:
        """The negotiated format, or None after sending 406."""
        if "format" in params:
            fmt = negotiate.from_name(params["format"][-1], graph=graph)
            if fmt is None:
                offered = ", ".join(
                    f.value for f, _ in (negotiate.GRAPH_TYPES if graph else negotiate.RESULT_TYPES)
                )
                self._send(
                    text_reply(400, f"format={params['format'][-1]!r}: use one of {offered}")
                )
            return fmt
        fmt = negotiate.choose(self.headers.get("Accept"), graph=graph)
        if fmt is None:
            offered = ", ".join(negotiate.offered(graph=graph))
            self._send(
                text_reply(
                    406,
                    f"cannot answer Accept: {self.headers.get('Accept')}; "
                    f"this result can be sent as {offered}",
                )
            )
        return fmt

    def _run(self, task: Task) -> None:
        self._send(self.server.pool.run(task))

    def _split(self) -> tuple[str, dict[str, list[str]]]:
        parts = urllib.parse.urlsplit(self.path)
        return parts.path, urllib.parse.parse_qs(parts.query, keep_blank_values=True)

    def _body(self) -> bytes | None:
        """The request body, or None after refusing it (too big, or of unknown length)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._send(text_reply(411, "send a Content-Length (chunked bodies are not accepted)"))
            return None
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self._send(text_reply(400, "bad Content-Length"))
            return None
        limit = self.server.config.max_request_bytes
        if length > limit:
            self.close_connection = True
            self._send(
                text_reply(413, f"request body of {length} bytes is over the {limit}-byte limit")
            )
            return None
        return self.rfile.read(length)

    def _send(self, reply: Reply, extra: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        if reply.content_type.startswith("text/html"):
            self.send_header(
                "Content-Security-Policy",
                "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                "style-src 'self' 'unsafe-inline'; img-src 'self' data:",
            )
        for name, value in (*CORS_HEADERS, *reply.headers, *extra):
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)


def _looks_like_update(text: str) -> bool:
    words = {t.text.upper() for t in tokens(text) if t.kind == "word"}
    return bool(
        words & {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD"}
    )


def _queries_json() -> bytes:
    from kg.query import named as queries

    listing = [q.as_json() for q in queries.all_queries()]
    return json.dumps(listing, ensure_ascii=False, indent=1).encode("utf-8")
