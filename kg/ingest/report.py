"""What a read did besides yielding papers: records skipped, duplicate ids, counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kg.ingest.tables import detect
from kg.types import SkippedRecord

FIELDS_SHOWN = 40


class DuplicateAction(StrEnum):
    """What happened to a record whose id was already seen."""

    # Same title and abstract as the earlier record: collapsed into it (not yielded again).
    MERGED = "merged"
    # Different content: yielded under a disambiguated id `{id}~2`, `{id}~3`, ...
    RENAMED = "renamed"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a record came from: the file as given and its 1-based record number."""

    source: str
    record: int

    def __str__(self) -> str:
        return f"{self.source}, record {self.record}"


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A record whose id had been seen before, both places, and what was done about it.

    `first` is the first record with that id (for a merge, the one it collapsed into);
    `new_id` is the id it was merged into or yielded under (`{id}~2`, ...).
    """

    id: str
    first: Place
    again: Place
    action: DuplicateAction
    new_id: str

    def describe(self) -> str:
        """One line for logs and error messages."""
        if self.action is DuplicateAction.MERGED:
            return (
                f"duplicate id {self.id!r} ({self.again}) has the same title and abstract as "
                f"{self.first}: merged into {self.new_id!r}"
            )
        return (
            f"duplicate id {self.id!r} ({self.again}) differs from {self.first}: "
            f"kept as {self.new_id!r}"
        )


@dataclass(slots=True)
class IngestReport:
    """Filled in while `read_papers` runs: pass one in, look at it afterwards.

    `read` counts records read OK: every yielded paper plus every duplicate merged into an
    earlier one (`read == yielded + merged`).
    """

    read: int = 0
    skipped: list[SkippedRecord] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    # Records read with a field repaired (lone surrogates), and what was done.
    repaired: list[SkippedRecord] = field(default_factory=list)
    # Each input's format as detected ("csv (';'-separated)") and the field names its records
    # have (the first record's, then any new ones, up to `FIELDS_SHOWN`): for messages.
    formats: dict[str, str] = field(default_factory=dict)
    fields: dict[str, list[str]] = field(default_factory=dict)
    # The source table the first record of each input was read with ("zotero-csv"), and where
    # that table looks for the abstract; absent when records are read by field name.
    tables: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def see(self, source: str, record: Mapping[str, Any]) -> None:
        """Remember the field names of a record of `source` (cheap after the first few)."""
        names = self.fields.get(source)
        if names is None:
            names = self.fields[source] = []
            table = detect(record)
            if table is not None:
                self.tables[source] = (table.name, table.paths("abstract"))
        if len(names) >= FIELDS_SHOWN:
            return
        for key in record:
            if key not in names and not str(key).startswith("@"):
                names.append(str(key))

    @property
    def merged(self) -> int:
        """Records collapsed into an earlier record with the same id and content."""
        return sum(1 for d in self.duplicates if d.action is DuplicateAction.MERGED)

    @property
    def renamed(self) -> int:
        """Records yielded under a disambiguated id."""
        return sum(1 for d in self.duplicates if d.action is DuplicateAction.RENAMED)
