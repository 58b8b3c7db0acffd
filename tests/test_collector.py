"""Memory housekeeping of bulk work (`kg.collector`)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

from kg.collector import collector_paused


def test_collector_paused_restores_the_collector_as_it_was() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_release_free_heap_gives_freed_pages_back() -> None:
    """In a fresh process: 2 KB buffers (past Python's small-object allocator, so the C heap's)
    filling ~300 MB, every 64th kept so that the heap's top cannot shrink by itself; after the
    others are freed the process keeps their pages until `release_free_heap`."""
    probe = textwrap.dedent("""
        import os
        from kg.collector import release_free_heap

        def rss():
            with open("/proc/self/statm") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20

        buffers = [bytearray(2048) for _ in range(150_000)]
        kept = buffers[::64]
        del buffers
        before = rss()
        released = release_free_heap()
        print(released, before, rss(), len(kept))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    released, before, after = out[0] == "True", int(out[1]), int(out[2])
    assert released  # glibc, as on every machine the project supports (Linux)
    assert before - after > 200, (before, after)
