"""Papers kept on disk instead of in memory while a build runs (issue 14).

A paper's texts (its abstract above all, ~1.5 KB) and metadata are ~2.5 KB of a build's
memory per paper, held from reading to the last triple written, though each stage reads a
paper only when it reaches it. `PaperShelf` is a read-only sequence of papers that writes each
one, pickled (the tuple of its fields), to an anonymous temporary file as it is made and reads
it back on every access: in memory it keeps only each paper's offset and a map from id to
position. Iterating it or indexing it gives equal papers (a new object per access), in the
order they were shelved, so a build that reads its papers from a shelf writes the same bytes as
one that holds them.

>>> from kg.types import Paper
>>> shelf = PaperShelf([Paper("a", "An abstract."), Paper("b", None, title="B")])
>>> len(shelf), shelf[1].title, [p.id for p in shelf], shelf.by_id["a"].abstract
(2, 'B', ['a', 'b'], 'An abstract.')
"""

from __future__ import annotations

import os
import pickle
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from typing import overload

from kg.types import Paper

# A paper is shelved as the tuple of its fields: pickling the frozen dataclass itself makes
# each read set its fields one `object.__setattr__` at a time after looking them up
# (`dataclasses.fields`), ~3x the time of this (issue 14: a build reads each paper ~20 times).
_FIELDS = tuple(f.name for f in fields(Paper))
_SETTERS = tuple(getattr(Paper, name).__set__ for name in _FIELDS)  # the slots' own setters


def _pack(paper: Paper) -> bytes:
    return pickle.dumps(tuple(getattr(paper, name) for name in _FIELDS),
                        protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(data: bytes) -> Paper:
    paper = object.__new__(Paper)  # `Paper` has no `__post_init__`: its fields are all it holds
    for set_field, value in zip(_SETTERS, pickle.loads(data), strict=True):
        set_field(paper, value)
    return paper


class PaperShelf(Sequence[Paper]):
    """Papers pickled to an anonymous temporary file, read back on access (see module)."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self._file = tempfile.TemporaryFile(prefix="paperkg-papers-")  # noqa: SIM115
        offsets = array("q", [0])
        index: dict[str, int] = {}
        write = self._file.write
        for paper in papers:
            data = _pack(paper)
            write(data)
            index[paper.id] = len(offsets) - 1  # the last paper of an id, as a dict by id keeps
            offsets.append(offsets[-1] + len(data))
        self._file.flush()
        self._offsets = offsets
        self._index = index
        self.by_id: PaperIndex = PaperIndex(self, index)
        """The papers by id (the last one of an id, as `{p.id: p for p in shelf}`)."""

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, i: int) -> Paper: ...

    @overload
    def __getitem__(self, i: slice) -> list[Paper]: ...

    def __getitem__(self, i: int | slice) -> Paper | list[Paper]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("paper shelf index out of range")
        start = self._offsets[i]
        data = os.pread(self._file.fileno(), self._offsets[i + 1] - start, start)
        return _unpack(data)

    def __iter__(self) -> Iterator[Paper]:
        for i in range(len(self)):
            yield self[i]

    def close(self) -> None:
        """Delete the file (the shelf cannot be read after)."""
        self._file.close()


class PaperIndex(Mapping[str, Paper]):
    """Papers by key: `index` maps a key to the position of its paper in `papers` (a shelf's
    papers are read on access, not held). The last paper read is kept: the corpus rules walk
    the links in paper order, reading one paper for each of its ~20 links (each read from a
    shelf unpickles it: 400,000 lookups of 20,000 papers in that order took 2.65 s of CPU,
    0.18 s with the last one kept)."""

    def __init__(self, papers: Sequence[Paper], index: dict[str, int]) -> None:
        self._papers = papers
        self._index = index
        self._last: tuple[str, Paper] | None = None

    def __getitem__(self, key: str) -> Paper:
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        paper = self._papers[self._index[key]]
        self._last = (key, paper)
        return paper

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def papers_by_id(papers: Sequence[Paper]) -> Mapping[str, Paper]:
    """`{p.id: p for p in papers}`, without reading a shelf's papers into memory."""
    if isinstance(papers, PaperShelf):
        return papers.by_id
    return {p.id: p for p in papers}
