"""The browser pages `kg serve` sends at /graph, built once per source and request and kept.

Building a page reads the whole graph (seconds on a big store), so a page is built the first
time it is asked for and then served from memory until the source changes: the key of a page
is its request parameters, and every cached page remembers the source's identity (device,
inode, size and modification time of the graph file, or of the store folder and its files) at
the time it was built. One build per key runs at a time; concurrent requests for it wait.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kg.server.workers import Reply

Key = tuple[tuple[str, str], ...]
Version = tuple[tuple[str, int, int, int, int], ...]


def source_version(path: str | None) -> Version:
    """The identity of a graph file or store folder now (empty when it has no path)."""
    if path is None:
        return ()
    root = Path(path)
    paths = [root]
    if root.is_dir():
        paths += sorted(p for p in root.iterdir() if p.is_file())
    found = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        found.append((p.name, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(found)


class PageCache:
    """Replies by key, rebuilt when `version()` changes: the least recently used go first
    once there are more than `max_pages` or they hold more than `max_bytes`; a reply larger
    than `max_reply_bytes` is not kept (`max_bytes=0` keeps none)."""

    def __init__(
        self,
        version: Callable[[], Version],
        *,
        max_pages: int = 32,
        max_bytes: int = 256_000_000,
        max_reply_bytes: int | None = None,
    ) -> None:
        self._version = version
        self._max = max_pages
        self._max_bytes = max_bytes
        self._max_reply = max_bytes if max_reply_bytes is None else max_reply_bytes
        self._pages: OrderedDict[Key, tuple[Version, Reply]] = OrderedDict()
        self._bytes = 0
        self._locks: dict[Key, threading.Lock] = {}
        self._guard = threading.Lock()
        self.builds = 0
        self.hits = 0

    def get(self, key: Key, build: Callable[[], Reply]) -> Reply:
        """The reply for `key`: the cached one if the source has not changed, else a new one
        (only successful replies are kept). Concurrent requests for one key build it once."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            now = self._version()
            with self._guard:
                cached = self._pages.get(key)
                if cached is not None and cached[0] == now:
                    self._pages.move_to_end(key)
                    self.hits += 1
                    return cached[1]
            reply = build()
            with self._guard:
                self.builds += 1
                if reply.status == 200 and len(reply.body) <= self._max_reply:
                    self._keep(key, now, reply)
                self._locks.pop(key, None)  # waiters hold it; later requests find the reply
            return reply

    def _keep(self, key: Key, version: Version, reply: Reply) -> None:
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= len(old[1].body)
        self._pages[key] = (version, reply)
        self._bytes += len(reply.body)
        while self._pages and (len(self._pages) > self._max or self._bytes > self._max_bytes):
            _, (_, dropped) = self._pages.popitem(last=False)
            self._bytes -= len(dropped.body)


def served_path(source: str | None, store: str | None) -> str | None:
    """The file or folder a server reads (None for an endpoint)."""
    given = store if store is not None else source
    if given is None or given.startswith(("http://", "https://")):
        return None
    return os.fspath(given)
