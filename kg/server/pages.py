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
    """Pages by request parameters, rebuilt when `version()` changes."""

    def __init__(self, version: Callable[[], Version], *, max_pages: int = 32) -> None:
        self._version = version
        self._max = max_pages
        self._pages: dict[Key, tuple[Version, Reply]] = {}
        self._locks: dict[Key, threading.Lock] = {}
        self._guard = threading.Lock()
        self.builds = 0

    def get(self, key: Key, build: Callable[[], Reply]) -> Reply:
        """The page for `key`: the cached one if the source has not changed, else a new one
        (only successful pages are kept)."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            now = self._version()
            cached = self._pages.get(key)
            if cached is not None and cached[0] == now:
                return cached[1]
            reply = build()
            self.builds += 1
            if reply.status == 200:
                with self._guard:
                    if len(self._pages) >= self._max and key not in self._pages:
                        self._pages.pop(next(iter(self._pages)))
                    self._pages[key] = (now, reply)
            return reply


def served_path(source: str | None, store: str | None) -> str | None:
    """The file or folder a server reads (None for an endpoint)."""
    given = store if store is not None else source
    if given is None or given.startswith(("http://", "https://")):
        return None
    return os.fspath(given)
