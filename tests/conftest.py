"""Shared fixtures and helpers: ../shared data (tests that need it skip with a reason when it is
absent), the browser, the `kg` command line, graph sources on every engine, loading a file
that is not in a package."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kg.query import Source, open_source
from kg.query.store import load_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
EXAMPLE = ROOT / "examples" / "iclr2025_abstracts.txt"


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`kg build`'s parse cache (`kg.extract.cache`) of session- and module-scoped fixtures:
    a temporary folder, never the user's home."""
    before = os.environ.get("KG_CACHE_DIR")
    os.environ["KG_CACHE_DIR"] = str(tmp_path_factory.mktemp("kg-cache-session"))
    yield
    if before is None:
        del os.environ["KG_CACHE_DIR"]
    else:
        os.environ["KG_CACHE_DIR"] = before


@pytest.fixture(autouse=True)
def _test_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's own parse cache folder (tests share no cached state)."""
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path_factory.mktemp("kg-cache")))


@pytest.fixture
def shared_data() -> Path:
    """`../shared/data`, or skip: a fresh clone without it still passes."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (it is present in CI)")
    return SHARED_DATA


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # Chromium refuses to run as root otherwise
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    """Headless Debian Chromium driven by Playwright (never a downloaded browser).

    `make test` installs /usr/bin/chromium when it is missing (scripts/ensure-chromium.sh).
    """
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    """A fresh page that records console errors and every network request it makes.

    `page.console_errors` and `page.requests` (URLs) are lists the test can assert on.
    """
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.requests = []  # type: ignore[attr-defined]
    pg.on(
        "console",
        lambda msg: pg.console_errors.append(msg.text) if msg.type == "error" else None,  # type: ignore[attr-defined]
    )
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))  # type: ignore[attr-defined]
    pg.on("request", lambda req: pg.requests.append(req.url))  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()


@dataclass
class KgServer:
    """A running `kg serve` (see the `kg_server` fixture)."""

    base: str
    process: subprocess.Popen[str]
    log: list[str] = field(default_factory=list)  # its stderr lines (access log, messages)

    @property
    def sparql(self) -> str:
        return self.base + "/sparql"


@pytest.fixture
def kg_server() -> Iterator[Callable[..., KgServer]]:
    """Start `kg serve ARGS… --port 0` (the port read from its announcement), ready to answer;
    every server started is stopped, with its workers, at the end of the test."""
    started: list[KgServer] = []

    def start(*args: str) -> KgServer:
        kg = Path(sys.executable).with_name("kg")
        process = subprocess.Popen(
            [str(kg), "serve", *args, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        base = None
        for line in process.stdout:
            if line.startswith("SPARQL endpoint: "):
                base = line.split()[-1].removesuffix("/sparql")
                break
        if base is None:
            process.wait(timeout=10)
            raise RuntimeError(f"kg serve did not start: {process.stderr.read()}")  # type: ignore[union-attr]
        server = KgServer(base, process)
        # Read its stderr as it comes: the access log would fill an unread pipe and block it.
        threading.Thread(target=_drain, args=(process.stderr, server.log), daemon=True).start()
        started.append(server)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/health", timeout=1).close()
                return server
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    yield start
    for server in started:
        server.process.terminate()
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
        for pipe in (server.process.stdout, server.process.stderr):
            if pipe is not None:
                pipe.close()


def _drain(pipe: Any, into: list[str]) -> None:
    try:
        for line in pipe:
            into.append(line)
    except (ValueError, OSError):  # closed at the end of the test
        return


def http(
    url: str, *, method: str = "GET", data: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request; HTTP errors are answers too."""
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers.items()), exc.read()


@pytest.fixture
def http_request() -> Callable[..., tuple[int, dict[str, str], bytes]]:
    """`http(url, method=, data=, headers=)` for tests (conftest is no importable module)."""
    return http
@pytest.fixture
def kg() -> Callable[..., Result]:
    """Run the `kg` command line in-process: `kg("stats", path)` -> click's `Result`
    (`exit_code`, `stdout`, `stderr`); arguments may be paths."""
    from kg.cli import main

    def run(*args: str | Path) -> Result:
        return CliRunner().invoke(main, [str(a) for a in args], prog_name="kg")

    return run


def load_module(path: Path) -> ModuleType:
    """A Python file that is not in a package (a script, a fixture builder) as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_file() -> Callable[[Path], ModuleType]:
    """`load_module` for tests (their modules cannot import conftest's functions)."""
    return load_module


@pytest.fixture(scope="session")
def relations_fixture() -> ModuleType:
    """tests/fixtures/relations_corpus.py: the hand-made corpus of relation sentences."""
    return load_module(ROOT / "tests" / "fixtures" / "relations_corpus.py")


@pytest.fixture(scope="session")
def open_engine(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[Path, str], Source]:
    """Open a graph file on an engine: "rdflib", "oxigraph-memory" or "oxigraph-store" (loaded
    into a temporary folder)."""

    def open_on(graph: Path, engine: str) -> Source:
        if engine == "oxigraph-store":
            store = tmp_path_factory.mktemp("store") / "graph.db"
            load_store(store, graph)
            return open_source(store=store)
        return open_source(graph, engine=engine.split("-")[0])

    return open_on
