"""Query worker processes: each opens the source once and answers tasks; a query that runs
past the time limit is stopped by killing its process, which a fresh one replaces.

Neither rdflib nor pyoxigraph can cancel a running query, so processes are the one way to
really stop the work. Workers start with "spawn" (the server has threads; forking them is
unsafe) and open the store read-only.

A worker keeps what it opened (a graph file read into memory, a store's snapshot), so the pool
watches the source: when the file or store folder is replaced (`kg build`, `kg load`), a new
set of workers opens it while the old ones go on answering, then takes over at once.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kg.errors import InputError, KGError, QueryError, StoreError
from kg.server.pages import Version, served_path, source_version


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """How a worker opens the source (a picklable `open_source` call)."""

    source: str | None = None
    store: str | None = None
    endpoint: str | None = None
    engine: str = "auto"
    # Query texts the server has checked (the named queries): workers do not parse them again.
    trusted: tuple[str, ...] = ()

    @property
    def remote(self) -> bool:
        """True when queries go to another endpoint (the workers then need the network)."""
        return self.endpoint is not None or str(self.source).startswith(("http://", "https://"))


@dataclass(frozen=True, slots=True)
class Task:
    """One request for a worker: a SPARQL query, a named query, or the browser view."""

    kind: str  # "sparql" | "named" | "graph" | "vocabulary"
    text: str = ""  # the SPARQL text, or the named query's name
    params: tuple[tuple[str, str], ...] = ()
    fmt: str = "json"
    max_rows: int = 10_000
    # A page of a named query's answer: the rows from `offset`, at most `max_rows` of them.
    offset: int = 0


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
        if task.kind == "vocabulary":
            from kg.server.vocabulary import vocabulary_json

            return Reply(200, "application/json", vocabulary_json(source))
        if task.kind == "named":
            from kg.query import run_named

            params = dict(task.params)
            result = run_named(source, task.text, params, limit=task.offset + task.max_rows)
            result = result.skip(task.offset)
        else:
            from kg.query.remote import EndpointSource
            from kg.query.safety import check_query

            if isinstance(source, EndpointSource):  # local sources check every query
                check_query(task.text)  # never SERVICE or FROM
            result = source.query(task.text, limit=task.max_rows)
        fmt = ResultFormat(task.fmt)
        headers = [("X-Paperkg-Row-Cap", str(task.max_rows))]
        if task.kind == "named":
            headers.append(("X-Paperkg-Offset", str(task.offset)))
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


def _worker_main(conn: Connection, spec: SourceSpec, nice: int = 0) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if nice:
        os.nice(nice)  # before anything: starting a worker is work too
    if not spec.remote:
        from kg.query.safety import lock_down_rdflib, sandbox_process, trust

        trust(spec.trusted)

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
    source.description = public_description(source.description, spec)
    if not spec.remote:
        _warm_up(source)
    conn.send(("ready", source.description))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the server has gone
        conn.send(execute(source, task))


def _warm_up(source: Any) -> None:
    """Build the SPARQL parser and evaluator once (a second or more on a busy machine), so
    that no client's first query pays for it."""
    from kg.query.safety import check_query

    check_query("ASK { ?s ?p ?o }")
    with contextlib.suppress(KGError):
        source.query("ASK { ?s ?p ?o }")


def public_description(description: str, spec: SourceSpec) -> str:
    """The source's description without the folders of its path (clients see only the file
    or folder name, never where it lives on the server)."""
    for given in (spec.source, spec.store):
        if given and not spec.remote:
            path = Path(given)
            for form in {given, str(path), str(path.resolve())}:
                description = description.replace(form, path.name)
    return description


@dataclass(eq=False)
class _Waiter:
    """A request waiting for a worker: `_dispatch` hands it one and sets `ready`."""

    ready: threading.Event = field(default_factory=threading.Event)
    worker: _Worker | None = None


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection
    generation: int  # which opening of the source it serves (see `WorkerPool.reload`)
    niced: bool = False  # ran a slow query at low priority: stopped once it is done


class WorkerPool:
    """Query worker processes; `run(task)` hands a task to an idle one and waits at most
    `timeout` seconds for its answer.

    `size` queries run at a time, on `size + spares` processes. A query that has run
    `slow_after` seconds counts as slow: while it runs, one more query may start (up to
    `spares` slow ones), and while other requests wait its worker drops to the lowest CPU
    priority, so slow queries never leave fast ones without a worker or a CPU. Idle workers
    are taken last in, first out (the one that answered last, its caches warm, answers next).
    At most `max_waiting` requests wait for a worker; more are refused at once (503). With
    `yield_when_slow`, a slow query always drops to the lowest priority (another pool's
    queries may need the CPU). Workers run at CPU priority `nice` (a niceness, 0 = normal),
    and start at it.

    Every `watch_every` seconds the pool compares the source's identity (`source_version`)
    with the one its workers opened; when it changed, `reload` opens it in a new generation of
    workers and switches to them once all are ready (no request waits for the new ones or sees
    a mix of old and new data). A source that fails to open keeps the old workers serving.
    """

    def __init__(
        self,
        spec: SourceSpec,
        *,
        size: int,
        timeout: float,
        spares: int = 2,
        slow_after: float = 1.0,
        max_waiting: int = 64,
        watch_every: float = 1.0,
        yield_when_slow: bool = False,
        nice: int = 0,
    ):
        self.spec = spec
        self.yield_when_slow = yield_when_slow
        self.nice = nice
        self.size = size
        self.spares = spares
        self.timeout = timeout
        self.slow_after = min(slow_after, timeout)
        self.max_waiting = max_waiting
        self.description = ""
        self._context = mp.get_context("spawn")
        self._cond = threading.Lock()  # guards the fields below
        self._idle: list[_Worker] = []  # a stack: the last one freed is taken first
        self._all: set[_Worker] = set()
        self._busy = 0  # queries running
        self._slow = 0  # of which past `slow_after` (each allows one more, up to `spares`)
        self._queue: collections.deque[_Waiter] = collections.deque()  # first come, first served
        self._closed = False
        self._path = None if spec.remote else served_path(spec.source, spec.store)
        self.generation = 0
        self.version: Version = source_version(self._path)  # what the serving workers opened
        self._refused: Version = ()  # a version that failed to open (not retried)
        started = self._open_generation()
        if isinstance(started, str):
            self.close()
            raise StoreError(f"cannot serve: {started}")
        self._idle, self.description = started
        self.generation += 1
        self._reload_lock = threading.Lock()
        self._watch_every = watch_every
        if self._path is not None and watch_every > 0:
            threading.Thread(target=self._watch, daemon=True, name="kg-source-watch").start()

    def _open_generation(self) -> tuple[list[_Worker], str] | str:
        """`size + spares` fresh workers of the next generation, ready (an idle stack), and
        the source's description; or the reason they could not open the source."""
        started = [self._start(self.generation + 1) for _ in range(self.size + self.spares)]
        ready_ones: list[_Worker] = []
        description = ""
        for worker in reversed(started):
            ready, info = self._await_ready(worker)
            if not ready:
                for other in started:
                    if other is not worker:
                        self._stop(other)
                return info
            description = info
            ready_ones.append(worker)
        return ready_ones, description

    def _watch(self) -> None:
        while not self._closed:
            time.sleep(self._watch_every)
            with contextlib.suppress(Exception):  # a watcher that dies would stop reloads
                self.reload()

    def reload(self) -> bool:
        """Open the source again if it changed since the workers opened it; True when the
        pool now serves the new version. Old workers finish what they run, then stop."""
        return reload_together([self])

    def _switch(self, fresh: tuple[list[_Worker], str], version: Version) -> None:
        """Serve from the `fresh` generation of workers; the old ones stop when idle."""
        with self._cond:
            old, (self._idle, self.description) = self._idle, fresh
            self.generation += 1
            self.version = version
            self._dispatch()
        for worker in old:
            self._stop(worker)

    def _start(self, generation: int) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main, args=(child, self.spec, self.nice), daemon=True,
            name="kg-query-worker",
        )
        process.start()
        child.close()
        worker = _Worker(process, parent, generation)
        with self._cond:
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

    def _capacity(self) -> int:
        return self.size + min(self._slow, self.spares)

    def _take(self) -> _Worker | Reply:
        """An idle worker, once fewer than `_capacity()` queries run; or a 503 reply. Requests
        get workers in the order they asked (a newcomer never overtakes one that waits)."""
        with self._cond:
            if not self._queue and self._idle and self._busy < self._capacity():
                self._busy += 1
                return self._idle.pop()
            if len(self._queue) >= self.max_waiting:
                return busy_reply(f"{len(self._queue)} requests are already waiting for a worker")
            waiter = _Waiter()
            self._queue.append(waiter)
        waiter.ready.wait(self.timeout)
        with self._cond:
            if waiter.worker is not None:  # handed over (perhaps just as the wait ended)
                return waiter.worker
            self._queue.remove(waiter)
        return busy_reply(f"every query worker stayed busy for {self.timeout:g} s")

    def _dispatch(self) -> None:
        """Hand idle workers to waiting requests, oldest first (called holding `_cond`)."""
        while self._queue and self._idle and self._busy < self._capacity():
            waiter = self._queue.popleft()
            self._busy += 1
            waiter.worker = self._idle.pop()
            waiter.ready.set()

    def run(
        self, task: Task, limit: float | None = None, timing: dict[str, float] | None = None
    ) -> Reply:
        """The worker's reply; 503 when the task ran out of time (`limit` seconds, the pool's
        `timeout` by default) or the pool is too busy. `timing` receives the seconds spent
        waiting for a worker ("wait") and in the worker ("run")."""
        limit = self.timeout if limit is None else limit
        asked = time.perf_counter()
        taken = self._take()
        began = time.perf_counter()
        if timing is not None:
            timing["wait"] = began - asked
        if isinstance(taken, Reply):
            return taken
        worker, slow = taken, False
        try:
            cpu_before = _cpu_seconds(worker.process.pid)
            worker.conn.send(task)
            deadline = began + limit
            # Slow means `slow_after` seconds of the worker's CPU time (wall time where it cannot
            # be read): on a busy machine a quick query can take long to finish without being
            # one that holds up the others.
            while not worker.conn.poll(max(min(self.slow_after, deadline - time.perf_counter()),
                                           0)):
                if time.perf_counter() >= deadline:
                    self._replace(worker, slow)
                    what = "query" if task.kind in ("sparql", "named") else f"{task.kind} page"
                    return text_reply(
                        503, f"the {what} ran longer than the {limit:g} s limit and was stopped"
                    )
                cpu_now = _cpu_seconds(worker.process.pid)
                used = (time.perf_counter() - began if cpu_before is None or cpu_now is None
                        else cpu_now - cpu_before)
                if not slow and used >= self.slow_after:
                    self._mark_slow(worker)
                    slow = True
            reply: Reply = worker.conn.recv()
            if timing is not None:
                timing["run"] = time.perf_counter() - began
        except (EOFError, OSError):
            self._replace(worker, slow)
            return text_reply(500, "the query worker died (out of memory?); it was restarted")
        self._release(worker, slow)
        return reply

    def _mark_slow(self, worker: _Worker) -> None:
        """Count a slow query (one more may start); while others wait, lower its priority."""
        with self._cond:
            self._slow += 1
            self._dispatch()
            crowded = self.yield_when_slow or bool(self._queue) or not self._idle
        if crowded:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, worker.process.pid, 19)
                worker.niced = True

    def _release(self, worker: _Worker, slow: bool) -> None:
        """A worker is free again. One that ran at low priority gets its priority back, or is
        replaced when the system does not allow that."""
        if worker.niced:
            try:
                os.setpriority(os.PRIO_PROCESS, worker.process.pid, self.nice)
                worker.niced = False
            except OSError:
                return self._replace(worker, slow)
        if self._closed:
            return self._stop(worker)
        with self._cond:
            self._busy -= 1
            self._slow -= slow
            current = worker.generation == self.generation
            if current:
                self._idle.append(worker)
            self._dispatch()
        if not current:  # the source was reloaded while it ran
            self._stop(worker)

    def _replace(self, worker: _Worker, slow: bool) -> None:
        """Stop a worker whose query ran out of time (or that died) and start another."""
        self._stop(worker)
        with self._cond:
            self._busy -= 1
            self._slow -= slow
            self._dispatch()
        if not self._closed:
            self._start_async()

    def _start_async(self) -> None:
        """Start a worker in the background; it joins the idle ones when ready (at the
        bottom: warm workers stay on top)."""

        def start() -> None:
            fresh = self._start(self.generation)
            ready, info = self._await_ready(fresh)
            if not ready:
                if not self._closed:
                    print(f"kg serve: could not start a query worker: {info}", file=sys.stderr)
                return
            with self._cond:
                current = not self._closed and fresh.generation == self.generation
                if current:
                    self._idle.insert(0, fresh)
                    self._dispatch()
            if not current:
                self._stop(fresh)

        threading.Thread(target=start, daemon=True, name="kg-worker-start").start()

    def _stop(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join(timeout=10)
        worker.conn.close()
        with self._cond:
            self._all.discard(worker)

    def close(self) -> None:
        """Stop every worker."""
        with self._cond:
            self._closed = True
            workers = list(self._all)
            while self._queue:  # waiting requests get their 503 now
                self._queue.popleft().ready.set()
        for worker in workers:
            self._stop(worker)


def reload_together(pools: list[WorkerPool]) -> bool:
    """Open the changed source in a new generation of workers for every pool (the server's
    lanes: they serve one source), then switch them all at once, the last pool last; True
    when they now serve the new version. When it cannot be opened, none switches."""
    with contextlib.ExitStack() as held:
        for pool in pools:
            held.enter_context(pool._reload_lock)
        first = pools[0]
        now = source_version(first._path)
        if (not now or now == first._refused or any(p._closed for p in pools)
                or all(now == p.version for p in pools)):
            return False  # missing (mid-swap), known to fail, closed, or unchanged
        with ThreadPoolExecutor(len(pools)) as opening:
            fresh = list(opening.map(lambda pool: pool._open_generation(), pools))
        failed = [reason for reason in fresh if isinstance(reason, str)]
        if failed:
            for pool, opened in zip(pools, fresh, strict=True):
                pool._refused = now
                if not isinstance(opened, str):
                    for worker in opened[0]:
                        pool._stop(worker)
            print(f"kg serve: the source changed but cannot be opened, still serving the "
                  f"previous version: {failed[0]}", file=sys.stderr)
            return False
        for pool, opened in zip(pools, fresh, strict=True):
            assert not isinstance(opened, str)
            pool._switch(opened, now)
        print(f"kg serve: the source changed; now serving {first.description}", file=sys.stderr)
        return True


def watch_together(pools: list[WorkerPool], every: float = 1.0) -> None:
    """Reload `pools` together whenever their source changes (a daemon thread's loop; the
    pools are made with `watch_every=0`)."""

    def watch() -> None:
        while not any(pool._closed for pool in pools):
            time.sleep(every)
            with contextlib.suppress(Exception):  # a watcher that dies would stop reloads
                reload_together(pools)

    if pools[0]._path is not None:
        threading.Thread(target=watch, daemon=True, name="kg-source-watch").start()


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), or None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def busy_reply(reason: str) -> Reply:
    """503 with Retry-After: the server is saturated, not broken."""
    reply = text_reply(503, f"the server is busy ({reason}); retry shortly")
    return Reply(reply.status, reply.content_type, reply.body, (("Retry-After", "1"),))
