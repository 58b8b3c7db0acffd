"""Relations between the concept mentions of one sentence, from the dependency parse.

Patterns (subject first; every argument is a mention of the same sentence):

- usedFor: "X for Y" (noun, "designed/used for", "useful for"), "apply/adapt X to Y",
  "use/adopt X to do Y", "a method to produce Y", "Y via/through/using/by X", and
  "S uses/leverages/employs O" (O used for S, SciERC's reading).
- basedOn: "an X-based Y" (Y, or the name Y stands in apposition to, is based on X),
  "Y (is) based/built on X", "Y builds upon X", "Y extends X", "Y, a variant of X".
- outperforms: "X outperforms/surpasses/beats Y", "X is better/faster than Y", "X is superior
  to Y", "X improves over/upon Y", "an improvement/speedup of X over Y".
- comparedWith: other comparatives ("X needs fewer steps than Y"), "X is comparable/competitive
  with Y", "compared with/to Y", "compare X with/against Y", "X versus Y".
- evaluatedOn: "evaluate/test X on D", "X achieves/outperforms … on D", "experiments on D
  show that X …".

A phrase stands for a mention when the mention is its head, names it ("the X model"), is in
apposition to it ("X, a Y-based model"), is an example of it ("models including X, Y") or is the
antecedent of its relative pronoun; its conjuncts count too ("X and Y for Z").

Why hand-written walks rather than spaCy's `DependencyMatcher`: every pattern ends in the phrase
resolution above (appositions, conjuncts, "including" lists, relative pronouns, raising to a
governing verb's subject), which a matcher pattern cannot express, so the matcher would only
find the trigger word that a set lookup finds in one pass over the tokens.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from spacy.tokens import Doc

from kg.extract.relation_patterns import Anchor, Finder, Found
from kg.extract.textfix import Repaired
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, RelationMention, RelationType, Span

__all__ = [
    "EXTRACTOR_RELATIONS", "TYPE_RULES", "Anchor", "FieldParse", "Found", "doc_relations",
    "find_relations",
]

EXTRACTOR_RELATIONS = "relations"

FieldParse = tuple[Field, Repaired, Doc]
"""One parsed field of a paper: which field, its repair map and the Doc of the repaired text."""

_C = ConceptType
_THINGS = frozenset({_C.METHOD, _C.MODEL})
# The concept types each relation joins in the graph: (subject types, object types).
TYPE_RULES: dict[RelationType, tuple[frozenset[ConceptType], frozenset[ConceptType]]] = {
    RelationType.USED_FOR: (_THINGS | {_C.DATASET}, _THINGS | {_C.TASK}),
    RelationType.BASED_ON: (_THINGS, _THINGS),
    RelationType.COMPARED_WITH: (_THINGS, _THINGS),
    RelationType.OUTPERFORMS: (_THINGS, _THINGS),
    RelationType.EVALUATED_ON: (_THINGS, frozenset({_C.DATASET})),
}


def find_relations(
    fields: Sequence[FieldParse], mentions: Sequence[Mention], *, typed: bool = True
) -> tuple[RelationMention, ...]:
    """The relations between `mentions` that the sentences of `fields` state.

    Mention offsets index the original text; each Doc is of the repaired text, so mentions are
    placed on it through the `Repaired` map. `typed` keeps only the type pairs of `TYPE_RULES`.
    """
    found: list[RelationMention] = []
    for part, repaired, doc in fields:
        own: list[Mention] = []
        anchors: list[Anchor] = []
        for mention in mentions:
            if mention.span.field is part:
                anchor = _anchor(doc, repaired, mention)
                if anchor is not None:
                    own.append(mention)
                    anchors.append(anchor)
        for s, predicate, o in doc_relations(doc, anchors, typed=typed):
            sent = doc[anchors[s].start].sent
            # A mention the sentence splitter cut in two runs on into the next sentence.
            end = max(doc[anchors[i].end - 1].sent.end_char for i in (s, o))
            where = Span(part, *repaired.to_original(sent.start_char, max(sent.end_char, end)))
            found.append(RelationMention(own[s], predicate, own[o], where, EXTRACTOR_RELATIONS))
    return tuple(found)


def _anchor(doc: Doc, repaired: Repaired, mention: Mention) -> Anchor | None:
    """The tokens of the repaired text's Doc that a mention (original offsets) covers."""
    start = bisect_left(repaired.offsets, mention.span.start)
    end = bisect_left(repaired.offsets, mention.span.end)
    span = doc.char_span(start, end, alignment_mode="expand") if end > start else None
    if span is None or len(span) == 0:
        return None
    key = norm_key(mention.long_form or mention.label)
    return Anchor(span.start, span.end, mention.ctype, key)


def doc_relations(doc: Doc, anchors: Sequence[Anchor], *, typed: bool = True) -> list[Found]:
    """The relations between anchors of one parsed Doc, sorted, without duplicates."""
    if len(anchors) < 2:
        return []
    finder = Finder(doc, anchors)
    finder.run()
    kept: set[Found] = set()
    for s, predicate, o in finder.found:
        a, b = anchors[s], anchors[o]
        if a.key == b.key or doc[a.start].sent.start != doc[b.start].sent.start:
            continue
        if typed:
            subjects, objects = TYPE_RULES[predicate]
            if a.ctype not in subjects or b.ctype not in objects:
                continue
        kept.add((s, predicate, o))
    return sorted(kept, key=lambda f: (anchors[f[0]].start, f[1].value, anchors[f[2]].start))
