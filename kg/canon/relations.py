"""Concept-concept relations across the corpus: relation mentions -> `ConceptRelation`s.

Each `RelationMention` of a paper (`kg.extract.relation_mentions`) joins two mentions; their concept
keys come from `kg.canon.concepts.mention_key` with the corpus's acronym expansions, exactly as the
paper -> concept links get theirs, so both endpoints are the concept nodes the links point at.
A relation whose endpoints are one concept is dropped, and so is one whose endpoint is not a
concept of the corpus. `comparedWith` is symmetric: its endpoints are put in key order (and the
mentions of its evidence with them), so "A compared with B" and "B compared with A" are one
relation with the evidence of both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import replace

from kg.canon.concepts import acronym_expansions, mention_key, same_id
from kg.types import (
    ConceptRelation,
    Extraction,
    Field,
    Mention,
    Paper,
    RelationMention,
    RelationType,
)

KeyOf = Callable[[str, Mention], str]
"""The concept key of a mention of a paper (paper id, mention) -> key."""

SYMMETRIC = frozenset({RelationType.COMPARED_WITH})
_FIELD_ORDER = {f: i for i, f in enumerate(Field)}


def canonical_relations(
    papers: Iterable[Paper],
    extractions: Mapping[str, Extraction],
    concepts: Container[str] | None = None,
    key_of: KeyOf | None = None,
) -> list[ConceptRelation]:
    """The corpus's relations, sorted by (subject key, predicate, object key).

    `concepts` holds the keys of the corpus's concepts (`Corpus.concepts`); without it, every
    key a mention of `extractions` has is one, as `kg.canon.concepts.canonicalise` makes
    them. `key_of` gives each mention's concept key as the links have it
    (`kg.canon.concepts.Canonical.key_of`); without it, `mention_key` with the corpus's acronym
    expansions. Evidence is in paper order, then by position in the paper.
    """
    if key_of is None:
        expansions = acronym_expansions(extractions.values())

        def key_of(_paper: str, mention: Mention) -> str:
            return mention_key(mention, expansions)

    evidence: dict[tuple[str, RelationType, str], list[tuple[str, RelationMention]]] = (
        defaultdict(list)
    )
    for paper in papers:
        extraction = extractions.get(paper.id)
        if extraction is None:
            continue
        paper_id = same_id(paper, extraction)
        known = concepts
        if known is None:
            known = {key_of(paper.id, m) for m in extraction.mentions}
        for relation in sorted(extraction.relations, key=_position):
            subject = key_of(paper.id, relation.subject)
            obj = key_of(paper.id, relation.object)
            if not subject or not obj or subject == obj:
                continue
            if subject not in known or obj not in known:
                continue
            if relation.predicate in SYMMETRIC and obj < subject:
                subject, obj = obj, subject  # "B compared with A" says "A compared with B"
                relation = replace(relation, subject=relation.object, object=relation.subject)
            evidence[subject, relation.predicate, obj].append((paper_id, relation))
    return [
        ConceptRelation(subject, predicate, obj, tuple(found))
        for (subject, predicate, obj), found in sorted(
            evidence.items(), key=lambda kv: (kv[0][0], kv[0][1].value, kv[0][2])
        )
    ]


def _position(relation: RelationMention) -> tuple[int, int, int, int, str]:
    """Where a relation mention is stated in its paper (for a deterministic evidence order)."""
    return (
        _FIELD_ORDER[relation.sentence.field],
        relation.subject.span.start,
        relation.object.span.start,
        relation.object.span.end,
        relation.predicate.value,
    )
