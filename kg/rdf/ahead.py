"""Making a graph's regions ahead of its writer, in a forked process (issue 14).

The writer of a graph (`kg.rdf.reuse.write_reusing`) runs in one process: it walks the
buffer's subjects in order, serialises them, and makes each paper's region (its evidence and
sentence nodes, `kg.rdf.canonical.Region`) when it reaches it — about 40 % of the writing
when most regions are new, while the build's other core waits. `RegionsAhead` forks a child
as soon as the buffer is filled (the fork shares the corpus, the buffer and the builder's
packed claims, nothing is sent over), which makes and serialises the planned ranges in order
and appends each one's bytes to a temporary file, telling the writer where through a pipe;
the writer takes them as it reaches them, merges the buffer's own subjects under the prefix
(made in the writer, as the buffer is consumed there), and makes a region itself when the
child has not made it (yet: the writer never waits for it; or not planned, failed, killed):
the bytes are the same either way (tests compare them). The child never writes the graph and
never logs; it ends with `os._exit`.

Why a fork and not `multiprocessing`/`concurrent.futures`: a pool's workers would need the
ranges' makers and what they read (the corpus's papers, the concepts' IRIs, the packed
claims) pickled over to them; a fork has them already, at copy-on-write cost.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import NamedTuple

from pyoxigraph import Triple

from kg.rdf.canonical import LazyRange, block_triples, range_blocks

__all__ = ["AHEAD_AT", "Made", "RegionsAhead"]

AHEAD_AT = 256
"""Fewer ranges to make than this: the writer makes them itself (a fork of a large process
costs a few milliseconds of page tables, and the child's head start matters only when there
is much to make)."""

Render = Callable[[list[Triple]], bytes]
"""Serialises triples as they would appear in the graph (without the format's header)."""

Splitter = Callable[[bytes, list[int]], list[int] | None]
"""Where each subject's statement ends in rendered bytes, given each subject's triple count;
None when the bytes cannot be cut so."""

# (range index, where its payload starts in the file or -1: the child failed on it, size)
_MESSAGE = struct.Struct("<qqQ")


class Made(NamedTuple):
    """A range made by the child: its subjects in order, where each one's bytes end in
    `data` (None: not known), how many triples each has, and the bytes."""

    subjects: list[str]
    ends: list[int] | None
    counts: list[int]
    data: bytes


class RegionsAhead:
    """A forked child making the `plan`ned ranges (indices into `ranges`), in order."""

    def __init__(self, ranges: Sequence[LazyRange], plan: Sequence[int], render: Render,
                 split: Splitter) -> None:
        """Start the child now (use `start` to fork only when it is worth it)."""
        self._planned = frozenset(plan)
        self._file = tempfile.TemporaryFile(prefix="paperkg-regions-")  # noqa: SIM115
        self._pending: tuple[int, int, int] | None = None
        self._over = False
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(read)
                code = _make_all(ranges, plan, render, split, self._file.fileno(), write)
            except BaseException:  # the writer makes whatever is missing
                pass
            finally:
                os._exit(code)
        os.close(write)
        self._read = read

    @classmethod
    def start(cls, ranges: Sequence[LazyRange], plan: Sequence[int], render: Render,
              split: Splitter, at_least: int = AHEAD_AT) -> RegionsAhead | None:
        """A child making the plan, or None when there are fewer than `at_least` ranges to
        make, no second core to make them on, or no `os.fork` (the writer makes them)."""
        if len(plan) < max(1, at_least) or not hasattr(os, "fork") or _cores() < 2:
            return None
        return cls(ranges, plan, render, split)

    def take(self, index: int) -> Made | None:
        """The range at `index` as the child made it; None when the writer must make it:
        not planned, the child failed or ended before it, or has not made it yet (the writer
        does not wait: whichever process is ahead makes a region, so neither idles while the
        other has work). Ask in increasing order."""
        if index not in self._planned:
            return None
        while not self._over:
            if self._pending is None and not _ready(self._read):
                return None
            message = self._pending or self._message()
            self._pending = None
            if message is None:
                self._over = True
                break
            got, at, size = message
            if got < index:  # a planned range the writer copied from the previous graph
                continue
            if got > index:
                self._pending = message
                return None
            if at < 0:
                self._over = True
                break
            data = os.pread(self._file.fileno(), size, at)
            if len(data) != size:
                self._over = True
                break
            made: Made = pickle.loads(data)  # written by this build's own child
            return made
        return None

    def close(self) -> None:
        """Stop the child (it may still be making ranges the writer copied) and let its file
        go."""
        os.close(self._read)
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self._file.close()

    def _message(self) -> tuple[int, int, int] | None:
        """The child's next message; None when it has closed the pipe (done, failed, killed)."""
        data = b""
        while len(data) < _MESSAGE.size:
            part = os.read(self._read, _MESSAGE.size - len(data))
            if not part:
                return None
            data += part
        index, at, size = _MESSAGE.unpack(data)
        return index, at, size


def _make_all(ranges: Sequence[LazyRange], plan: Sequence[int], render: Render,
              split: Splitter, fd: int, pipe: int) -> int:
    """The child's work: each planned range made, rendered, appended to `fd`, announced on
    `pipe`; at the first failure, that range announced as failed and the work stopped."""
    position = 0
    for index in plan:
        try:
            blocks = range_blocks(ranges[index])
            triples: list[Triple] = []
            counts: list[int] = []
            for _, block in blocks:
                made = block_triples(block)
                counts.append(len(made))
                triples += made
            data = render(triples)
            payload = pickle.dumps(Made([s for s, _ in blocks], split(data, counts), counts,
                                        data), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # the writer makes it again, and reports the error
            os.write(pipe, _MESSAGE.pack(index, -1, 0))
            return 1
        view = memoryview(payload)
        while view:
            written = os.pwrite(fd, view, position)
            position += written
            view = view[written:]
        os.write(pipe, _MESSAGE.pack(index, position - len(payload), len(payload)))
    return 0


def _ready(fd: int) -> bool:
    """Whether reading `fd` would not block (a message, or the end of the pipe)."""
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def _cores() -> int:
    """How many cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
