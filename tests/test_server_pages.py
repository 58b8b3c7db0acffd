"""`kg serve`'s page cache (`kg.server.pages`): a page is built once per request and source,
rebuilt when the source changes, never kept when it failed; /graph is the map by default."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from kg.server.pages import PageCache, served_path, source_version
from kg.server.workers import Reply, text_reply

KG = Path(sys.executable).parent / "kg"
ANALYSED = Path(__file__).parent / "fixtures" / "analyze_graph.ttl"


def _page(text: str) -> Reply:
    return Reply(200, "text/html; charset=utf-8", text.encode())


def test_a_page_is_built_once_until_the_source_changes() -> None:
    version = [("graph.ttl", 1, 1, 10, 1)]
    cache = PageCache(lambda: tuple(version))
    built: list[int] = []

    def build() -> Reply:
        built.append(1)
        return _page(f"page {len(built)}")

    key = (("view", "map"),)
    assert cache.get(key, build).body == b"page 1"
    assert cache.get(key, build).body == b"page 1"
    assert cache.get((("view", "whole"),), build).body == b"page 2"
    version[0] = ("graph.ttl", 1, 1, 12, 2)  # the file was rewritten
    assert cache.get(key, build).body == b"page 3"
    assert len(built) == 3


def test_the_least_recently_used_replies_go_first_and_big_ones_are_not_kept() -> None:
    cache = PageCache(lambda: (), max_pages=100, max_bytes=30, max_reply_bytes=12)
    built: list[str] = []

    def build(text: str) -> Reply:
        built.append(text)
        return _page(text)

    for name in ("a" * 10, "b" * 10, "c" * 10):
        cache.get(((name, ""),), lambda name=name: build(name))  # type: ignore[misc]
    cache.get((("a" * 10, ""),), lambda: build("again"))  # a hit: "a" is now the newest
    cache.get((("d" * 10, ""),), lambda: build("d" * 10))  # 40 bytes > 30: the oldest, "b", goes
    cache.get((("b" * 10, ""),), lambda: build("b again"))
    assert built == ["a" * 10, "b" * 10, "c" * 10, "d" * 10, "b again"]
    assert (cache.hits, cache.builds) == (1, 5)
    cache.get((("big", ""),), lambda: build("x" * 13))  # over max_reply_bytes: built each time
    cache.get((("big", ""),), lambda: build("x" * 13))
    assert built[-2:] == ["x" * 13, "x" * 13]


def test_a_failed_page_is_not_kept() -> None:
    cache = PageCache(lambda: ())
    replies = iter([text_reply(503, "too slow"), _page("ok")])
    assert cache.get((), lambda: next(replies)).status == 503
    assert cache.get((), lambda: next(replies)).body == b"ok"


def test_concurrent_requests_for_one_page_build_it_once() -> None:
    cache = PageCache(lambda: ())
    started = threading.Event()
    calls: list[int] = []

    def slow() -> Reply:
        calls.append(1)
        started.set()
        time.sleep(0.2)  # holds the build while the other requests arrive
        return _page("map")

    threads = [threading.Thread(target=cache.get, args=((), slow)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert started.is_set() and len(calls) == 1


def test_the_source_version_follows_the_file_and_the_store_folder(tmp_path: Path) -> None:
    graph = tmp_path / "graph.ttl"
    graph.write_text("<urn:a> <urn:b> <urn:c> .\n", encoding="utf-8")
    before = source_version(str(graph))
    graph.write_text("<urn:a> <urn:b> <urn:d> .\n", encoding="utf-8")
    assert source_version(str(graph)) != before
    store = tmp_path / "store"
    store.mkdir()
    (store / "CURRENT").write_text("1", encoding="utf-8")
    first = source_version(str(store))
    (store / "CURRENT").write_text("22", encoding="utf-8")
    assert source_version(str(store)) != first
    assert served_path(None, None) is None
    assert served_path("http://example.org/sparql", None) is None
    assert served_path(None, str(store)) == str(store)


@pytest.mark.server
def test_graph_serves_the_map_by_default_and_from_the_cache() -> None:
    process = subprocess.Popen([str(KG), "serve", str(ANALYSED), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base = None
        for line in process.stdout:
            if line.startswith("SPARQL endpoint: "):
                base = line.split()[-1].removesuffix("/sparql")
                break
        assert base is not None, process.stderr.read() if process.stderr else ""
        with urllib.request.urlopen(base + "/graph", timeout=120) as response:
            first = response.read()
        assert b"<title>Map of the field" in first
        assert b'"focusUrl": "/graph?view=ego\\u0026focus="' in first
        with urllib.request.urlopen(base + "/graph", timeout=120) as response:
            assert response.read() == first
        with urllib.request.urlopen(base + "/graph?view=whole", timeout=120) as response:
            assert b"<title>Map of the field" not in response.read()
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.server
def test_answers_are_cached_except_those_that_change_every_run(
    kg_server: Any, http_request: Any
) -> None:
    import json
    import urllib.parse

    server = kg_server(str(Path(__file__).parent / "fixtures" / "query_graph.ttl"))

    def ask(query: str) -> tuple[str, bytes]:
        url = server.sparql + "?" + urllib.parse.urlencode({"query": query})
        status, headers, body = http_request(url)
        assert status == 200, body
        return headers["Server-Timing"], body

    plain = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    first_timing, first = ask(plain)
    assert first_timing.startswith("wait;dur=") and ", run;dur=" in first_timing
    assert ask(plain) == ("cache;desc=hit", first)
    random = "SELECT (RAND() AS ?r) WHERE {}"
    answers = [ask(random) for _ in range(2)]
    assert all(timing != "cache;desc=hit" for timing, _ in answers)
    values = [json.loads(body)["results"]["bindings"][0]["r"]["value"] for _, body in answers]
    assert values[0] != values[1]
