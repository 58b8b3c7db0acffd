"""One object per equal value in the extractions phase 2 holds (issue 14: bounded memory).

A corpus's extractions are millions of small objects that phase 2 keeps until the graph is
written (the links' mentions are the evidence nodes). Decoded from cached records or sent back
by worker processes, every one of them is a fresh copy: on 4,766 papers the mentions alone
held 306,207 strings of 44,580 distinct values (the extractor names, and the same surface
forms and labels in paper after paper), a span object per mention for the sentence a dozen
mentions share, and each relation's two mentions again beside the paper's own.
`compact_extraction` gives back an equal `Extraction` whose strings are interned (shared by
the whole corpus, freed with the last user), whose spans' offsets are one int object per value
for the corpus, and whose equal spans and mentions are one object within the paper. Given a
table (`spans`), equal spans are one object across every paper compacted with it: a span is a
field and two offsets into a text of a few thousand characters, so a corpus repeats them
(colm2025 + aistats2025, 1,001 papers: 56,997 spans of mentions, sentences, acronyms and
relations, 30,093 objects with a table per paper, 22,535 with one for the corpus), and the
table's size is bounded by the texts' lengths, not by the number of papers
(`kg.build.extract_corpus` keeps one for the extraction stage). The values are the same, so
everything downstream (the graph's bytes included) is too.

>>> from kg.types import ConceptType, Field, Mention, Role, Span
>>> m = Mention("GAN", "GAN", Span(Field.ABSTRACT, 0, 3), Span(Field.ABSTRACT, 0, 40),
...             ConceptType.METHOD, Role.USES, "rules")
>>> copy = Mention("GAN", "GAN", Span(Field.ABSTRACT, 0, 3), Span(Field.ABSTRACT, 0, 40),
...                ConceptType.METHOD, Role.USES, "rules")
>>> e = compact_extraction(Extraction("p1", mentions=(m, copy)))
>>> e == Extraction("p1", mentions=(m, copy)), e.mentions[0] is e.mentions[1]
(True, True)
"""

from __future__ import annotations

from sys import intern

from kg.types import Acronym, Extraction, Mention, RelationMention, Span

__all__ = ["SpanTable", "compact_extraction"]

SpanTable = dict[Span, Span]
"""Equal spans to the one object that stands for them (see module docstring)."""

# Character offsets, one int object per value for the whole corpus: a decoded record makes a
# new one for every offset above 256 (32 bytes each, ~0.5 KB a paper); the table stops growing
# at the longest text's length.
_OFFSETS: dict[int, int] = {}


def _offset(value: int) -> int:
    return _OFFSETS.setdefault(value, value)


def compact_extraction(extraction: Extraction, spans: SpanTable | None = None) -> Extraction:
    """An equal extraction sharing its equal strings (corpus-wide), spans (with the papers
    compacted with the same `spans` table, else within the paper) and mentions."""
    if spans is None:
        spans = {}
    mentions: dict[Mention, Mention] = {}

    def span(value: Span) -> Span:
        found = spans.get(value)
        if found is None:
            found = spans[value] = Span(value.field, _offset(value.start), _offset(value.end))
        return found

    def mention(m: Mention) -> Mention:
        found = mentions.get(m)
        if found is None:
            found = Mention(intern(m.text), intern(m.label), span(m.span), span(m.sentence),
                            m.ctype, m.role, intern(m.extractor),
                            None if m.long_form is None else intern(m.long_form),
                            None if m.short_form is None else intern(m.short_form))
            mentions[found] = found
        return found

    sentences = tuple(span(s) for s in extraction.sentences)
    return Extraction(
        paper_id=extraction.paper_id,
        mentions=tuple(mention(m) for m in extraction.mentions),
        acronyms=tuple(Acronym(intern(a.short), intern(a.long), span(a.span))
                       for a in extraction.acronyms),
        urls=extraction.urls,
        sentences=sentences,
        relations=tuple(RelationMention(mention(r.subject), r.predicate, mention(r.object),
                                        span(r.sentence), intern(r.extractor))
                        for r in extraction.relations),
    )
