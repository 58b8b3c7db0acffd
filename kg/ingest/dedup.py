"""Duplicate ids across one read: same content is merged, different content is renamed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from kg.ingest.ids import renamed_id
from kg.ingest.report import Duplicate, DuplicateAction, Place
from kg.types import Paper


def _content(paper: Paper) -> bytes:
    """A digest of what makes two records with one id the same paper: title and abstract."""
    text = f"{paper.title or ''}\x00{paper.abstract or ''}"
    return hashlib.sha256(text.encode("utf-8")).digest()


@dataclass(slots=True)
class _Seen:
    place: Place
    content: bytes
    id: str


@dataclass(slots=True)
class Deduplicator:
    """Remembers every id yielded so far (with a digest of its content, not the text)."""

    # id -> the records seen under it: the first, then those renamed away from it.
    _seen: dict[str, list[_Seen]] = field(default_factory=dict)

    def check(self, paper: Paper) -> Duplicate | None:
        """None for a new id; else the duplicate and what to do with it.

        `Duplicate.new_id` is the id the paper is merged into or must be yielded under (a rename
        reserves it, so call this once per record).
        """
        place = Place(paper.source, paper.record)
        content = _content(paper)
        earlier = self._seen.get(paper.id)
        if earlier is None:
            self._seen[paper.id] = [_Seen(place, content, paper.id)]
            return None
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
