"""Concept -> concept relations and their evidence as RDF (docs/VOCABULARY.md, "Relations").

`<A> kg:usedFor <B>` (and `kg:basedOn`, `kg:comparedWith`, `kg:outperforms`, `kg:evaluatedOn`)
for every `ConceptRelation` of the corpus; `kg:outperforms` also gives its super-property
`kg:comparedWith`, as a role property comes with `kg:mentions`. Every relation mention gets one
`kg:RelationEvidence` node: the paper, the sentence, both mentions' text and offsets, and the
extractor (PROV-O), minted from the paper, the field, both spans and the predicate.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping

from pyoxigraph import NamedNode

from kg import __version__
from kg.errors import KGError
from kg.ingest.shelf import papers_by_id
from kg.namespaces import KG
from kg.rdf import terms as t
from kg.rdf.canonical import TripleBuffer
from kg.rdf.iris import Iris, paper_key
from kg.types import Corpus, Paper, RelationMention, RelationType

logger = logging.getLogger(__name__)


def _kg(name: str) -> NamedNode:
    """A term of the `KG` namespace (a `DefinedNamespace`: an undeclared name raises)."""
    return NamedNode(str(KG[name]))


RELATION_PROPERTY: dict[RelationType, NamedNode] = {r: _kg(r.value) for r in RelationType}
KG_RELATION_EVIDENCE = _kg("RelationEvidence")
KG_RELATION = _kg("relation")
KG_SUBJECT_CONCEPT = _kg("subjectConcept")
KG_OBJECT_CONCEPT = _kg("objectConcept")
KG_STATED_IN_PAPER = _kg("statedInPaper")
KG_STATED_IN_SENTENCE = _kg("statedInSentence")
KG_SUBJECT_TEXT = _kg("subjectText")
KG_SUBJECT_START = _kg("subjectStart")
KG_SUBJECT_END = _kg("subjectEnd")
KG_OBJECT_TEXT = _kg("objectText")
KG_OBJECT_START = _kg("objectStart")
KG_OBJECT_END = _kg("objectEnd")
# Every kg: term this module writes (a test checks that the ontology declares each one).
TERMS = (
    *RELATION_PROPERTY.values(), KG_RELATION_EVIDENCE, KG_RELATION, KG_SUBJECT_CONCEPT,
    KG_OBJECT_CONCEPT, KG_STATED_IN_PAPER, KG_STATED_IN_SENTENCE, KG_SUBJECT_TEXT,
    KG_SUBJECT_START, KG_SUBJECT_END, KG_OBJECT_TEXT, KG_OBJECT_START, KG_OBJECT_END,
)  # fmt: skip
# A relation property and the super-properties materialised with it.
_IMPLIED = {RelationType.OUTPERFORMS: (RelationType.COMPARED_WITH,)}



def relation_evidence_iri(paper_iri: str, mention: RelationMention) -> str:
    """`{paper}/relation/{field}-{subject start}-{subject end}-{predicate}-{object start}-{end}`.

    >>> from kg.types import ConceptType, Field, Mention, Role, Span
    >>> def m(s, e): return Mention("x", "x", Span(Field.ABSTRACT, s, e),
    ...                             Span(Field.ABSTRACT, 0, 50), ConceptType.MODEL, Role.USES, "r")
    >>> rel = RelationMention(m(3, 9), RelationType.BASED_ON, m(20, 29), m(0, 1).sentence, "r")
    >>> relation_evidence_iri("https://e.org/paper/p1", rel)
    'https://e.org/paper/p1/relation/abstract-3-9-basedOn-20-29'
    """
    s, o = mention.subject.span, mention.object.span
    return (f"{paper_iri}/relation/{s.field.value}-{s.start}-{s.end}-"
            f"{mention.predicate.value}-{o.start}-{o.end}")


def add_relation_triples(
    out: TripleBuffer, corpus: Corpus, iris: Iris, concept_iri: Mapping[str, str]
) -> None:
    """Add the triples of `corpus.relations` (see module docstring) to `out`.

    `concept_iri` maps concept keys to IRIs (as the rest of the graph mints them). Sentence
    nodes already in `out` (from paper -> concept evidence) are shared, not repeated.
    """
    papers = papers_by_id(corpus.papers)  # a `PaperShelf`'s are read on access, not held
    # Each paper's relation mentions, to read the paper once for all of them (issue 14: the
    # evidence of one relation comes from many papers, and a shelf unpickles each read).
    cited: dict[str, list[tuple[RelationMention, str, str]]] = defaultdict(list)
    for relation in corpus.relations:
        subject = _concept(concept_iri, relation.subject_key)
        obj = _concept(concept_iri, relation.object_key)
        for predicate in (relation.predicate, *_IMPLIED.get(relation.predicate, ())):
            out.add(subject, RELATION_PROPERTY[predicate], *t.iri_term(obj))
        for paper_id, mention in relation.evidence:
            if paper_id not in papers:
                raise KGError(
                    f"relation {relation.subject_key!r} {relation.predicate.value} "
                    f"{relation.object_key!r} cites paper {paper_id!r}, which is not in the "
                    "corpus: canonical_relations must only use read papers"
                )
            cited[paper_id].append((mention, subject, obj))
    extractors: set[str] = set()  # names whose triples are added (once, not a mention's)
    for paper_id, found in cited.items():
        paper = papers[paper_id]
        sentences: set[str] = set()  # the paper's sentence nodes added (only relations add them)
        for mention, subject, obj in found:
            problem = _problem(paper, mention)
            if problem:
                logger.warning(
                    "paper %r (%s, record %d): no evidence for %r %s %r: %s",
                    paper_id, paper.source, paper.record, mention.subject.text,
                    mention.predicate.value, mention.object.text, problem,
                )  # fmt: skip
                continue
            _evidence(out, iris, paper, mention, subject, obj, sentences, extractors)


def _concept(concept_iri: Mapping[str, str], key: str) -> str:
    iri = concept_iri.get(key)
    if iri is None:
        raise KGError(
            f"a relation names concept {key!r}, which is not in corpus.concepts: "
            "canonical_relations must drop relations whose endpoints are not concepts"
        )
    return iri


def _evidence(
    out: TripleBuffer, iris: Iris, paper: Paper, mention: RelationMention, subject: str, obj: str,
    sentences: set[str], extractors: set[str],
) -> None:
    paper_iri = iris.paper(paper_key(paper))
    where = mention.sentence
    sentence = Iris.sentence(paper_iri, where)
    if sentence not in sentences:
        sentences.add(sentence)
        text = paper.text(where.field)[where.start : where.end]
        out.add(sentence, t.RDF_TYPE, *t.iri_term(t.KG_SENTENCE.value))
        out.add(sentence, t.KG_FIELD, *t.str_term(where.field.value))
        out.add(sentence, t.KG_START, *t.int_term(where.start))
        out.add(sentence, t.KG_END, *t.int_term(where.end))
        out.add(sentence, t.KG_TEXT, *t.str_term(text))
    extractor = iris.extractor(mention.extractor, __version__)
    if mention.extractor not in extractors:  # issue 14: not 4 entries a mention on one subject
        extractors.add(mention.extractor)
        out.add(extractor, t.RDF_TYPE, *t.iri_term(t.KG_EXTRACTOR.value))
        out.add(extractor, t.RDF_TYPE, *t.iri_term(t.PROV_SOFTWARE_AGENT.value))
        out.add(extractor, t.RDFS_LABEL, *t.str_term(f"paperkg {mention.extractor}"))
        out.add(extractor, t.SCHEMA_SOFTWARE_VERSION, *t.str_term(__version__))
    s, o = mention.subject, mention.object
    node = relation_evidence_iri(paper_iri, mention)
    add = out.add
    add(node, t.RDF_TYPE, *t.iri_term(KG_RELATION_EVIDENCE.value))
    add(node, KG_RELATION, *t.iri_term(RELATION_PROPERTY[mention.predicate].value))
    add(node, KG_SUBJECT_CONCEPT, *t.iri_term(subject))
    add(node, KG_OBJECT_CONCEPT, *t.iri_term(obj))
    add(node, KG_STATED_IN_PAPER, *t.iri_term(paper_iri))
    add(node, KG_STATED_IN_SENTENCE, *t.iri_term(sentence))
    add(node, t.KG_FIELD, *t.str_term(s.span.field.value))
    add(node, KG_SUBJECT_TEXT, *t.str_term(s.text))
    add(node, KG_SUBJECT_START, *t.int_term(s.span.start))
    add(node, KG_SUBJECT_END, *t.int_term(s.span.end))
    add(node, KG_OBJECT_TEXT, *t.str_term(o.text))
    add(node, KG_OBJECT_START, *t.int_term(o.span.start))
    add(node, KG_OBJECT_END, *t.int_term(o.span.end))
    add(node, t.PROV_WAS_ATTRIBUTED_TO, *t.iri_term(extractor))


def _problem(paper: Paper, mention: RelationMention) -> str | None:
    """Why a relation mention cannot be evidence (offsets off its sentence), or None."""
    where = mention.sentence
    text = paper.text(where.field)
    if not 0 <= where.start < where.end <= len(text):
        return f"sentence offsets outside the {where.field.value} ({len(text)} characters)"
    for side in (mention.subject, mention.object):
        span = side.span
        if span.field is not where.field or not where.start <= span.start < span.end <= where.end:
            return f"{side.text!r} is not inside its sentence {where.start}-{where.end}"
        if text[span.start : span.end] != side.text:
            return f"the {span.field.value} has {text[span.start : span.end]!r} where " \
                   f"{side.text!r} should be"
    return None
