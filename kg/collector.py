"""Memory housekeeping of bulk work: pausing Python's cyclic garbage collector around work that
makes no reference cycles, and handing freed heap back to the system between jobs.

Extraction (`kg.extract.partition`) and the graph writer (`kg.rdf.build`) each make and drop
hundreds of thousands or millions of small objects (unpickled cache entries, candidates,
features, mentions; tuples and terms of triples). Reference counting frees them; the collector,
started by their allocation counts, only walks them again and again (about 15 % of writing
5,000 papers' graph; a rule change's extraction on colm2025, one process, 3.6-3.7 -> 3.2-3.3
s). A cycle made inside the block waits for the collector's next run after it.

`release_free_heap` is for a long-lived process between jobs, and before a stage that needs
memory the last one freed. Extracting a batch of papers frees most of what it allocated, but
glibc's allocator keeps the freed pages inside its heap (only the heap's top is given back by
itself): one process extracting 2,440 papers in batches of 64, no cache, held 516 MB at the
end without it and 378 MB with it after each batch, for 0.09 s in all (issue 14). In a
2-process build of 2,687 papers the process tree's peak did not move with it alone, within
this machine's noise. Python has no call for it, so it is glibc's `malloc_trim` through
ctypes, and nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

__all__ = ["collector_paused", "release_free_heap"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, back as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def release_free_heap() -> bool:
    """Give the pages the C allocator holds free back to the system (glibc `malloc_trim(0)`);
    False where the C library has no such call."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim
