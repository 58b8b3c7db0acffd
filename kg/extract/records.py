"""Extraction records: one paper's `Extraction` as a plain JSON value and back.

The record format of phase 1 (the parse cache keeps one per paper text, `kg.extract.cache`):
compact arrays rather than objects, because a large corpus holds millions of mentions. A
record round-trips exactly (`from_record(to_record(x), x.paper_id) == x`), so a build from
cached records writes the same bytes as a build that extracted afresh.

>>> from kg.types import Extraction, Field, Span
>>> e = Extraction("p1", urls=("https://github.com/a/b",), sentences=(Span(Field.TITLE, 0, 5),))
>>> record = to_record(e)
>>> record["urls"], record["sentences"]
(['https://github.com/a/b'], [['title', 0, 5]])
>>> from_record(record, "p1") == e
True

`RECORD_FORMAT` names this layout: the parse cache's record version includes it instead of this
file's source (`kg.extract.cache.ORCHESTRATION`), so a faster reader keeps every cached record;
a change of the layout must bump it.
"""

from __future__ import annotations

from typing import Any

from kg.types import (
    Acronym,
    ConceptType,
    Extraction,
    Field,
    Mention,
    RelationMention,
    RelationType,
    Role,
    Span,
)

RECORD_FORMAT = 1
"""The version of the layout `to_record` writes (bump it whenever that changes)."""

Record = dict[str, Any]
"""A JSON object: mentions, acronyms, urls, sentences, relations (no paper id: the record is
of a text, which several paper ids may share)."""


def to_record(extraction: Extraction) -> Record:
    """The JSON value of an extraction (without its paper id)."""
    return {
        "mentions": [_mention(m) for m in extraction.mentions],
        "acronyms": [[a.short, a.long, *_span(a.span)] for a in extraction.acronyms],
        "urls": list(extraction.urls),
        "sentences": [_span(s) for s in extraction.sentences],
        "relations": [[_mention(r.subject), r.predicate.value, _mention(r.object),
                       _span(r.sentence), r.extractor] for r in extraction.relations],
    }


def from_record(record: Record, paper_id: str) -> Extraction:
    """The extraction of `paper_id` a record holds."""
    return Extraction(
        paper_id=paper_id,
        mentions=tuple(_to_mention(m) for m in record["mentions"]),
        acronyms=tuple(Acronym(short, long, _to_span(span))
                       for short, long, *span in record["acronyms"]),
        urls=tuple(record["urls"]),
        sentences=tuple(_to_span(s) for s in record["sentences"]),
        relations=tuple(
            RelationMention(_to_mention(s), RelationType(p), _to_mention(o), _to_span(where),
                            extractor)
            for s, p, o, where, extractor in record["relations"]
        ),
    )


def _span(span: Span) -> list[Any]:
    return [span.field.value, span.start, span.end]


# By value: a dict look-up, where calling the enum (`Field(value)`) costs ~5 µs; a value not
# in them (a damaged record) still raises the enum's ValueError.
_FIELD = {f.value: f for f in Field}
_TYPE = {t.value: t for t in ConceptType}
_ROLE = {r.value: r for r in Role}


def _to_span(value: list[Any]) -> Span:
    field, start, end = value
    return Span(_FIELD.get(field) or Field(field), start, end)


def _mention(m: Mention) -> list[Any]:
    return [m.text, m.label, _span(m.span), _span(m.sentence), m.ctype.value, m.role.value,
            m.extractor, m.long_form, m.short_form]


def _to_mention(value: list[Any]) -> Mention:
    text, label, span, sentence, ctype, role, extractor, long_form, short_form = value
    return Mention(text, label, _to_span(span), _to_span(sentence),
                   _TYPE.get(ctype) or ConceptType(ctype), _ROLE.get(role) or Role(role),
                   extractor, long_form, short_form)
