"""Duplicate ids across one read: same content is merged, different content is renamed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from kg.ingest.ids import renamed_id
from kg.ingest.report import Duplicate, DuplicateAction, Place
from kg.types import Paper


def _content(paper: Paper) -> int:
    """A 64-bit digest of what makes two records with one id the same paper: title and
    abstract."""
    text = f"{paper.title or ''}\x00{paper.abstract or ''}"
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


@dataclass(slots=True)
class _Seen:
    place: Place
    content: int
    id: str


@dataclass(slots=True)
class Deduplicator:
    """Remembers every id yielded so far, compactly: one packed integer per id (content digest,
    file, record) until the id is seen twice. A 1 GB snapshot of 500,000 papers costs about
    60 MB here, the only memory a read keeps per paper."""

    # id -> the packed first record, or the records seen under it: the first, then those
    # renamed away from it.
    _seen: dict[str, int | list[_Seen]] = field(default_factory=dict)
    _sources: list[str] = field(default_factory=list)
    _source_index: dict[str, int] = field(default_factory=dict)

    def _pack(self, paper: Paper, content: int) -> int:
        index = self._source_index.get(paper.source)
        if index is None:
            index = self._source_index[paper.source] = len(self._sources)
            self._sources.append(paper.source)
        return (content << 64) | (index << _RECORD_BITS) | paper.record

    def _unpack(self, packed: int, id: str) -> _Seen:
        record = packed & ((1 << _RECORD_BITS) - 1)
        index = (packed >> _RECORD_BITS) & ((1 << (64 - _RECORD_BITS)) - 1)
        return _Seen(Place(self._sources[index], record), packed >> 64, id)

    def check(self, paper: Paper) -> Duplicate | None:
        """None for a new id; else the duplicate and what to do with it.

        `Duplicate.new_id` is the id the paper is merged into or must be yielded under (a rename
        reserves it, so call this once per record).
        """
        place = Place(paper.source, paper.record)
        content = _content(paper)
        earlier = self._seen.get(paper.id)
        if earlier is None:
            if paper.record < (1 << _RECORD_BITS):
                self._seen[paper.id] = self._pack(paper, content)
            else:
                self._seen[paper.id] = [_Seen(place, content, paper.id)]
            return None
        if isinstance(earlier, int):
            earlier = self._seen[paper.id] = [self._unpack(earlier, paper.id)]
        for seen in earlier:
            if seen.content == content:
                return Duplicate(paper.id, seen.place, place, DuplicateAction.MERGED, seen.id)
        n = len(earlier) + 1
        while (new_id := renamed_id(paper.id, n)) in self._seen:
            n += 1
        renamed = _Seen(place, content, new_id)
        earlier.append(renamed)
        # A later record that carries `new_id` as its own id is a duplicate of this one.
        self._seen[new_id] = [renamed]
        return Duplicate(paper.id, earlier[0].place, place, DuplicateAction.RENAMED, new_id)


# Record numbers up to 2**40 fit beside the file index in the packed integer.
_RECORD_BITS = 40
