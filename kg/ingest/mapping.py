"""The small engine behind the source tables: field paths into nested records, first match wins.

A path is dotted keys into objects, `[]` for every element of a list and `[N]` for one:
`authorships[].author.display_name`, `content.title.value`, `externalIds.DOI`,
`versions[0].created`. A `Field` lists alternative paths (the first that gives a value wins)
and an optional converter applied to the value found.

>>> table = Table("demo", signatures=(frozenset({"meta"}),), fields={
...     "title": Field("content.title.value", "content.title"),
...     "authors": Field("people[].name"),
... })
>>> table.apply({"meta": 1, "content": {"title": "T"}, "people": [{"name": "A"}, {"x": 1}]})
{'title': 'T', 'authors': ['A']}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kg.ingest.convert import Converter

_STEP = re.compile(r"([^.\[\]]+)|\[(\d*)\]")


def _steps(path: str) -> tuple[str | int | None, ...]:
    """ "a[].b[0]" -> ("a", None, "b", 0): keys, None = every element, int = one element."""
    steps: list[str | int | None] = []
    for match in _STEP.finditer(path):
        key, index = match.groups()
        if key is not None:
            steps.append(key)
        else:
            steps.append(int(index) if index else None)
    return tuple(steps)


def get_path(record: Any, steps: tuple[str | int | None, ...]) -> Any:
    """The value at a parsed path; a list when the path has `[]`; None when absent."""
    value = record
    for i, step in enumerate(steps):
        if step is None:
            if not isinstance(value, list):
                return None
            rest = steps[i + 1 :]
            found = [get_path(item, rest) for item in value]
            return [item for item in found if not _empty(item)]
        if isinstance(step, int):
            value = value[step] if isinstance(value, list) and step < len(value) else None
        else:
            value = value.get(step) if isinstance(value, Mapping) else None
        if value is None:
            return None
    return value


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


@dataclass(frozen=True, slots=True, init=False)
class Field:
    """Where one paper field is found: alternative paths, and a converter for the value."""

    paths: tuple[str, ...]
    convert: Converter | None
    _steps: tuple[tuple[str | int | None, ...], ...]

    def __init__(self, *paths: str, convert: Converter | None = None) -> None:
        object.__setattr__(self, "paths", paths)
        object.__setattr__(self, "convert", convert)
        object.__setattr__(self, "_steps", tuple(_steps(p) for p in paths))

    def find(self, record: Mapping[str, Any]) -> Any:
        """The first non-empty (converted) value of the paths, else None."""
        for steps in self._steps:
            value = get_path(record, steps)
            if self.convert is not None and not _empty(value):
                value = self.convert(value)
            if not _empty(value):
                return value
        return None


@dataclass(frozen=True, slots=True)
class Table:
    """One source's field mapping: which records it applies to and where each field is.

    A record matches when it has every key of one of `signatures`, or when its reader marked
    it with `marker` (the `@source` key, for formats whose reader names the source).
    """

    name: str
    signatures: tuple[frozenset[str], ...] = ()
    fields: Mapping[str, Field] = field(default_factory=dict)
    marker: str | None = None

    def matches(self, record: Mapping[str, Any]) -> bool:
        if self.marker is not None and record.get(MARKER) == self.marker:
            return True
        return any(all(key in record for key in keys) for keys in self.signatures)

    def apply(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The paper fields found in `record` (only those with a value)."""
        values = {}
        for name, spec in self.fields.items():
            value = spec.find(record)
            if value is not None:
                values[name] = value
        return values

    def paths(self, name: str) -> tuple[str, ...]:
        """Where this table looks for paper field `name` (for messages)."""
        spec = self.fields.get(name)
        return spec.paths if spec is not None else ()


# The key a reader sets to name the source table of its records ("ris", "arxiv-atom", ...).
MARKER = "@source"
