"""Query worker processes: each opens the source once and answers tasks; a query that runs
past the time limit is stopped by killing its process, which a fresh one replaces.

Neither rdflib nor pyoxigraph can cancel a running query, so processes are the one way to
really stop the work. Workers start with "spawn" (the server has threads; forking them is
unsafe) and open the store read-only.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
import sys
import threading
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from kg.errors import InputError, KGError, QueryError, StoreError


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """How a worker opens the source (a picklable `open_source` call)."""

    source: str | None = None
    store: str | None = None
    endpoint: str | None = None
    engine: str = "auto"

    @property
    def remote(self) -> bool:
        """True when queries go to another endpoint (the workers then need the network)."""
        return self.endpoint is not None or str(self.source).startswith(("http://", "https://"))


@dataclass(frozen=True, slots=True)
class Task:
    """One request for a worker: a SPARQL query, a named query, or the browser view."""

    kind: str  # "sparql" | "named" | "graph"
    text: str = ""  # the SPARQL text, or the named query's name
    params: tuple[tuple[str, str], ...] = ()
    fmt: str = "json"
    max_rows: int = 10_000


@dataclass(frozen=True, slots=True)
class Reply:
    """What the HTTP handler sends back."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = field(default=())


def text_reply(status: int, message: str) -> Reply:
    """A plain-text reply (errors)."""
    return Reply(status, "text/plain; charset=utf-8", (message.rstrip() + "\n").encode())


def execute(source: Any, task: Task) -> Reply:
    """Run one task on an open source (in a worker); errors become 4xx/5xx replies."""
    from kg.query import ResultFormat, serialize

    try:
        if task.kind == "graph":
            return _render_graph(source, task)
        if task.kind == "named":
            from kg.query import run_named

            result = run_named(source, task.text, dict(task.params), limit=task.max_rows)
        else:
            from kg.query.safety import check_query

            check_query(task.text)  # every source, an endpoint's too: never SERVICE or FROM
            result = source.query(task.text, limit=task.max_rows)
        fmt = ResultFormat(task.fmt)
        headers = [("X-Paperkg-Row-Cap", str(task.max_rows))]
        if result.truncated:
            headers.append(("X-Paperkg-Truncated", "true"))
        return Reply(200, fmt.media_type, serialize(result, fmt), tuple(headers))
    except (QueryError, InputError) as exc:
        return text_reply(400, str(exc))
    except KGError as exc:
        return text_reply(500, str(exc))
    except Exception:
        # A bug: say so to the client and print the traceback where the operator sees it.
        traceback.print_exc(file=sys.stderr)
        return text_reply(500, "internal error while running the query (see the server log)")


def _render_graph(source: Any, task: Task) -> Reply:
    """The browser view (`viz.render_html`) of the source's graph.

    `view`, `focus`, `query`, `max_nodes` and `hops` are the view's options (without any of
    the first three: the map view); every other request parameter is a parameter of the named
    query `query`.
    """
    import pyoxigraph as ox

    import viz

    graph = getattr(source, "store", None)
    if not isinstance(graph, ox.Store):
        graph = getattr(source, "graph", None)
    if graph is None:
        return text_reply(404, "the browser view needs a graph file or store, not an endpoint")
    options = dict(task.params)
    kwargs: dict[str, Any] = {k: options.pop(k) for k in ("view", "focus", "query") if k in options}
    if not kwargs:
        kwargs["view"] = "map"  # the map of the field is the default view
    if kwargs.get("view") == "map":
        kwargs["focus_url"] = "/graph?view=ego&focus="
    for key in ("max_nodes", "hops"):
        if key in options:
            try:
                kwargs[key] = int(options.pop(key))
            except ValueError:
                return text_reply(400, f"{key} must be a whole number")
    html = viz.render_html(graph, params=options, source_name=source.description, **kwargs)
    return Reply(200, "text/html; charset=utf-8", str(html).encode("utf-8"))


def _worker_main(conn: Connection, spec: SourceSpec) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if not spec.remote:
        from kg.query.safety import lock_down_rdflib, sandbox_process

        if not sandbox_process():  # first, while this process has one thread
            print(
                "kg serve: this system allows no private network namespace; query workers rely "
                "on the query check and rdflib's lock-down to stay offline",
                file=sys.stderr,
            )
        lock_down_rdflib()
    from kg.query import open_source

    try:
        source = open_source(
            spec.source, store=spec.store, endpoint=spec.endpoint, engine=spec.engine
        )
    except KGError as exc:
        conn.send(("failed", str(exc)))
        return
    conn.send(("ready", source.description))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the server has gone
        conn.send(execute(source, task))


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection


class WorkerPool:
    """`size` worker processes; `run(task)` hands a task to an idle one, waiting at most
    `timeout` seconds for its answer."""

    def __init__(self, spec: SourceSpec, *, size: int, timeout: float):
        self.spec = spec
        self.timeout = timeout
        self.description = ""
        self._context = mp.get_context("spawn")
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        started = [self._start() for _ in range(size)]
        for worker in started:
            ready, info = self._await_ready(worker)
            if not ready:
                self.close()
                raise StoreError(f"cannot serve: {info}")
            self.description = info
            self._idle.put(worker)

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main, args=(child, self.spec), daemon=True, name="kg-query-worker"
        )
        process.start()
        child.close()
        worker = _Worker(process, parent)
        with self._lock:
            self._all.add(worker)
        return worker

    def _await_ready(self, worker: _Worker) -> tuple[bool, str]:
        """(True, source description) once the worker has opened the source."""
        try:
            status, info = worker.conn.recv()
        except (EOFError, OSError):
            status, info = "failed", "the query worker exited while opening the source"
        if status != "ready":
            self._stop(worker)
        return status == "ready", str(info)

    def run(self, task: Task) -> Reply:
        """The worker's reply, or 503 when the query ran out of time or no worker is free."""
        try:
            worker = self._idle.get(timeout=self.timeout)
        except queue.Empty:
            return text_reply(503, f"all query workers stayed busy for {self.timeout:g} s; retry")
        try:
            worker.conn.send(task)
            if worker.conn.poll(self.timeout):
                reply: Reply = worker.conn.recv()
                self._idle.put(worker)
                return reply
        except (EOFError, OSError):
            self._replace(worker)
            return text_reply(500, "the query worker died (out of memory?); it was restarted")
        self._replace(worker)
        return text_reply(
            503, f"the query ran longer than the {self.timeout:g} s limit and was stopped"
        )

    def _replace(self, worker: _Worker) -> None:
        self._stop(worker)
        if self._closed:
            return

        def restart() -> None:
            fresh = self._start()
            ready, info = self._await_ready(fresh)
            if not ready:
                print(f"kg serve: could not restart a query worker: {info}", file=sys.stderr)
                return
            self._idle.put(fresh)

        threading.Thread(target=restart, daemon=True, name="kg-worker-restart").start()

    def _stop(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join(timeout=10)
        worker.conn.close()
        with self._lock:
            self._all.discard(worker)

    def close(self) -> None:
        """Stop every worker."""
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            self._stop(worker)
