"""Pickling extraction's plain data quickly: what crosses from worker processes to the build
(`kg.extract.partition`) and the parse cache's `prepared` entries (`kg.extract.extractor`).

A dataclass is pickled as its class and field values, so that loading calls the class: a
slotted dataclass's own state restore looks its fields up for every object, several times
slower for the hundreds of thousands of spans, mentions and candidates of a few hundred papers
(418 papers' extractions: 0.28-0.46 s to load the default way, 0.03-0.09 s this way).

>>> from kg.types import Field, Span
>>> unpack(pack([Span(Field.TITLE, 0, 4)]))
[Span(field=<Field.TITLE: 'title'>, start=0, end=4)]
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from functools import cache
from typing import Any


def pack(value: object) -> bytes:
    """`value` pickled, its dataclasses as calls of their class."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


def unpack(data: bytes) -> Any:
    """The value `pack` pickled (only ever data this process or its workers wrote)."""
    return pickle.loads(data)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: object) -> Any:
        kind = type(obj)
        names = _init_fields(kind) if dataclasses.is_dataclass(kind) else None
        if names is None:
            return NotImplemented
        return kind, tuple(getattr(obj, name) for name in names)


@cache
def _init_fields(kind: type) -> tuple[str, ...] | None:
    """The fields a dataclass's constructor takes, in order; None if some field is not one."""
    fields = dataclasses.fields(kind)
    return tuple(f.name for f in fields) if all(f.init for f in fields) else None
