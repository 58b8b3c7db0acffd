"""The HTTP side of `kg serve`: SPARQL 1.1 Protocol at /sparql, named queries at
/queries/NAME, the query page at /, the browser view at /graph. Read-only.

Built on the standard library's `http.server` (no framework needed for six routes); the
queries themselves run in worker processes (`workers.WorkerPool`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import socket
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kg.errors import QueryError
from kg.query.sparql_text import query_form, tokens
from kg.server import negotiate
from kg.server.pages import PageCache
from kg.server.workers import Reply, Task, WorkerPool, text_reply

# Sent only to the origins given with --cors (none by default).
CORS_HEADERS = (
    ("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type, Accept"),
    ("Access-Control-Expose-Headers", "X-Paperkg-Truncated, X-Paperkg-Row-Cap"),
    ("Access-Control-Max-Age", "86400"),
)
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
_LENGTH = re.compile(r"[0-9]{1,15}")
READ_ONLY = "this endpoint is read-only: SPARQL updates are refused (load data with `kg load`)"
UNSUPPORTED_PARAMS = ("default-graph-uri", "named-graph-uri")
# Request parameters of /queries/NAME that choose the page, not the query's parameters.
PAGE_PARAMS = ("offset", "limit")
_COUNT = re.compile(r"[0-9]{1,9}")
# Functions whose value changes from one run to the next: such answers are never cached.
_CHANGING = re.compile(r"\b(?:NOW|RAND|UUID|STRUUID|BNODE)\s*\(", re.IGNORECASE)


class SparqlServer(ThreadingHTTPServer):
    """An HTTP server with the worker pool, settings and page the handler needs.

    One thread per connection (HTTP/1.1 keep-alive), at most `config.max_connections` at a
    time: a connection over that gets an immediate 503 rather than a thread. Named queries run
    in their own lane of workers (`named_pool`), SPARQL sent by users and the browser pages in
    `pool`: a slow query there never queues a named query behind it.
    """

    daemon_threads = True
    request_queue_size = 256  # the listen backlog: bursts of clients are not dropped

    def __init__(
        self,
        address: tuple[str, int],
        pool: WorkerPool,
        config: Any,
        page: bytes,
        *,
        named_pool: WorkerPool | None = None,
    ):
        super().__init__(address, SparqlHandler)
        self.pool = pool
        self.named_pool = named_pool or pool
        self.config = config
        self.page = page
        self._page_source = pool.description
        # A page is as new as the workers that build it: keyed by the version they opened.
        self.pages = PageCache(lambda: pool.version)
        # Query results, likewise: the source is read-only, so an answer holds until it changes.
        budget = int(getattr(config, "cache_mb", 0) * 1_000_000)
        self.results = {
            lane: PageCache(lambda lane=lane: lane.version, max_pages=100_000,  # type: ignore[misc]
                            max_bytes=budget, max_reply_bytes=budget // 16)
            for lane in {pool, self.named_pool}
        }
        self.slots = threading.BoundedSemaphore(getattr(config, "max_connections", 256))
        self.allowed_hosts = _allowed_hosts(
            str(self.server_address[0]), getattr(config, "allow_hosts", ())
        )

    def query_page(self) -> bytes:
        """The page at /, naming the source the workers serve now (it changes on a reload)."""
        description = self.pool.description
        if description != self._page_source:
            from kg.server.page import render_page

            self.page, self._page_source = render_page(description), description
        return self.page

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            body = b"too many open connections; retry shortly\n"
            with contextlib.suppress(OSError):
                request.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
                    b"Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def host_allowed(self, host: str | None) -> bool:
        """True for a Host header naming this server: the bound address or a local alias (or
        an --allow-host name, any port), with the bound port or none; or any IP address
        literal (DNS rebinding, which this stops, needs a name)."""
        if host is None:
            return True  # HTTP/1.0 clients; browsers always send one
        name, port = _split_host(host)
        if name is None:
            return False
        bound_port = int(self.server_address[1])
        if name in self.allowed_hosts.get("any-port", set()):
            return True
        if port is not None and port != bound_port:
            return False
        if name in self.allowed_hosts["names"]:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True


def _allowed_hosts(bound: str, extra: tuple[str, ...]) -> dict[str, set[str]]:
    names = {*LOCAL_NAMES, bound.lower()}
    if bound in ("0.0.0.0", "::", ""):
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return {"names": names, "any-port": {h.lower() for h in extra}}


def _split_host(host: str) -> tuple[str | None, int | None]:
    """(name, port) of a Host header; (None, None) when it is malformed."""
    host = host.strip().lower()
    match = re.fullmatch(r"\[([0-9a-f:.]+)\](?::([0-9]{1,5}))?|([^:\[\]]+)(?::([0-9]{1,5}))?", host)
    if not match:
        return None, None
    name = match[1] or match[3]
    port = match[2] or match[4]
    return name.rstrip("."), int(port) if port else None


class SparqlHandler(BaseHTTPRequestHandler):
    """One request: route it, check it, hand the query to a worker, send the reply."""

    server: SparqlServer
    server_version = "paperkg"

    protocol_version = "HTTP/1.1"  # keep-alive: every reply has a Content-Length
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stall
    timeout = 30  # seconds an idle keep-alive connection is kept

    # --- routing -------------------------------------------------------------------------
    def do_OPTIONS(self) -> None:
        if self._host_refused():
            return
        self._send(Reply(HTTPStatus.NO_CONTENT, "text/plain", b""))

    def do_HEAD(self) -> None:
        self.do_GET()  # `_send` leaves the body out

    def do_GET(self) -> None:
        if self._host_refused():
            return
        path, query = self._split()
        if path == "/":
            self._send(Reply(200, "text/html; charset=utf-8", self.server.query_page()))
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
        elif path == "/vocabulary":
            self._send(self.server.pages.get((("route", "vocabulary"),),
                                             lambda: self._build(Task("vocabulary"))))
        elif path == "/update":
            self._send(text_reply(403, READ_ONLY))
        else:
            self._send(text_reply(404, f"no such page {path!r}: try / or /sparql"))

    def do_POST(self) -> None:
        if self._host_refused():
            return
        path, query = self._split()
        if path != "/sparql":
            self.close_connection = True  # the body is not read
        if path == "/update":
            self._send(text_reply(403, READ_ONLY))
        elif path != "/sparql":
            self._send(text_reply(404 if path != "/" else 405, f"POST is for /sparql, not {path}"))
        else:
            self._protocol_post(query)

    def _refuse_write(self) -> None:
        self.close_connection = True  # its body is not read
        self._send(text_reply(405, READ_ONLY), extra=(("Allow", "GET, HEAD, POST, OPTIONS"),))

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
        page = self._page(params)
        if page is None:
            return
        offset, rows = page
        values = tuple(
            (k, v[-1]) for k, v in sorted(params.items()) if k not in ("format", *PAGE_PARAMS)
        )
        task = Task("named", named.name, values, fmt.value, rows, offset)
        kept = [*values, *((("format", params["format"][-1]),) if "format" in params else ())]
        following = urllib.parse.urlencode(
            [*kept, ("offset", str(offset + rows)), ("limit", str(rows))]
        )
        self._run(task, next_page=f"/queries/{urllib.parse.quote(named.name)}?{following}")

    def _page(self, params: dict[str, list[str]]) -> tuple[int, int] | None:
        """A named query's page: (offset, rows) from `offset` (default 0) and `limit` (default
        `--page-rows`; `all` or more than `--max-rows`: `--max-rows`); None after a 400."""
        config = self.server.config
        cap = config.max_rows
        offset_text = params.get("offset", ["0"])[-1].strip()
        limit_text = params.get("limit", [str(getattr(config, "page_rows", cap))])[-1].strip()
        if not _COUNT.fullmatch(offset_text):
            self._send(text_reply(400, f"offset={offset_text!r}: give a row number from 0"))
            return None
        if limit_text == "all":
            return int(offset_text), cap
        if not _COUNT.fullmatch(limit_text) or int(limit_text) == 0:
            self._send(text_reply(400, f"limit={limit_text!r}: give a number of rows, or all"))
            return None
        return int(offset_text), min(int(limit_text), cap)

    def _graph(self, params: dict[str, list[str]]) -> None:
        values = tuple((k, v[-1]) for k, v in sorted(params.items()))
        # Built once per request and source, rebuilt when the graph file or store changes.
        key = (("route", "graph"), *values)
        self._send(self.server.pages.get(key, lambda: self._build(Task("graph", params=values))))

    def _build(self, task: Task) -> Reply:
        """A page-like task (cached by the caller): the page time limit, not the query's."""
        limit = getattr(self.server.config, "page_timeout", None)
        return self.server.pool.run(task, limit)

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

    def _run(self, task: Task, next_page: str | None = None) -> None:
        """Answer a query from the result cache, or from a worker. The Server-Timing header
        says where the time went: waiting for a worker, running in it, or a cache hit. An
        answer with more rows than it holds links to `next_page` (`Link: <…>; rel="next"`)."""
        timing: dict[str, float] = {}
        pool = self.server.named_pool if task.kind == "named" else self.server.pool
        if task.kind == "sparql" and _CHANGING.search(task.text):
            reply = pool.run(task, timing=timing)  # a new answer every time
        else:
            key = (("kind", task.kind), ("text", task.text), ("fmt", task.fmt),
                   ("rows", str(task.max_rows)), ("offset", str(task.offset)), *task.params)
            reply = self.server.results[pool].get(key, lambda: pool.run(task, timing=timing))
        parts = [f"{name};dur={seconds * 1000:.1f}" for name, seconds in timing.items()]
        extra = [("Server-Timing", ", ".join(parts) or "cache;desc=hit")]
        if next_page is not None and ("X-Paperkg-Truncated", "true") in reply.headers:
            extra.append(("Link", f'<{next_page}>; rel="next"'))
        self._send(reply, extra=tuple(extra))

    def _split(self) -> tuple[str, dict[str, list[str]]]:
        parts = urllib.parse.urlsplit(self.path)
        return parts.path, urllib.parse.parse_qs(parts.query, keep_blank_values=True)

    def _host_refused(self) -> bool:
        """Refuse (421) a request whose Host header is not this server: a page elsewhere that
        rebinds its own name to 127.0.0.1 must not reach the endpoint."""
        host = self.headers.get("Host")
        if self.server.host_allowed(host):
            return False
        self.close_connection = True
        self._send(
            text_reply(
                421,
                f"Host {host!r} is not this server's address; start kg serve with "
                "--allow-host NAME to accept requests for another name",
            )
        )
        return True

    def _body(self) -> bytes | None:
        """The request body, or None after refusing it (too big, or of unknown length)."""
        if self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = True
            self._send(text_reply(411, "send a Content-Length (chunked bodies are not accepted)"))
            return None
        lengths = self.headers.get_all("Content-Length") or ["0"]
        if len(set(lengths)) != 1 or not _LENGTH.fullmatch(lengths[0].strip()):
            self.close_connection = True
            self._send(
                text_reply(400, f"bad Content-Length {', '.join(lengths)!r}: give one byte count")
            )
            return None
        length = int(lengths[0])
        limit = self.server.config.max_request_bytes
        if length > limit:
            self.close_connection = True
            self._send(
                text_reply(413, f"request body of {length} bytes is over the {limit}-byte limit")
            )
            return None
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            self._send(text_reply(400, f"the body ended after {len(body)} of {length} bytes"))
            return None
        return body

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
        for name, value in (*self._cors(), *reply.headers, *extra):
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    def _cors(self) -> tuple[tuple[str, str], ...]:
        """CORS headers for an Origin given with --cors (none otherwise: browsers then keep
        other sites' pages from reading the answers)."""
        allowed = getattr(self.server.config, "cors", ())
        origin = self.headers.get("Origin")
        if not allowed or origin is None:
            return ()
        if "*" in allowed:
            return (("Access-Control-Allow-Origin", "*"), *CORS_HEADERS)
        if origin in allowed:
            return (("Access-Control-Allow-Origin", origin), ("Vary", "Origin"), *CORS_HEADERS)
        return (("Vary", "Origin"),)


def _looks_like_update(text: str) -> bool:
    words = {t.text.upper() for t in tokens(text) if t.kind == "word"}
    return bool(
        words & {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD"}
    )


def _queries_json() -> bytes:
    from kg.query import named as queries

    listing = [q.as_json() for q in queries.all_queries()]
    return json.dumps(listing, ensure_ascii=False, indent=1).encode("utf-8")
