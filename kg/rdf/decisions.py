"""Corpus-level decisions and people's corrections as RDF (docs/VOCABULARY.md, "Decisions").

Each `CanonDecision` becomes `{concept}/decision/{rule}` (`kg:CanonDecision`): the concept it
decided, the rule, the variants it concerns, how many papers' links it changed and a note, so
"why is LLM one node with large language model?" is answered in the graph. A concept whose
papers disagree on its type lists every `kg:typeVote` ("Method: 12"). Each correction that
applied becomes `{base}correction/{file}-{entry}` (`kg:Correction`, a `prov:Activity`) with
what the person wrote; the decisions it made are `prov:wasGeneratedBy` it and the concept it
changed `prov:wasInfluencedBy` it.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyoxigraph import NamedNode

from kg.namespaces import KG, PROV_IRI
from kg.normalize import slug
from kg.rdf import terms as t
from kg.rdf.canonical import TripleBuffer
from kg.rdf.iris import Iris
from kg.types import Corpus, Correction


def _kg(term: object) -> NamedNode:
    return NamedNode(str(term))


KG_CANON_DECISION = _kg(KG.CanonDecision)
KG_DECIDED_CONCEPT = _kg(KG.decidedConcept)
KG_RULE = _kg(KG.rule)
KG_VARIANT = _kg(KG.variant)
KG_PAPERS_AFFECTED = _kg(KG.papersAffected)
KG_TYPE_VOTE = _kg(KG.typeVote)
KG_CORRECTION = _kg(KG.Correction)
KG_CORRECTION_ACTION = _kg(KG.correctionAction)
KG_CORRECTION_TARGET = _kg(KG.correctionTarget)
KG_CORRECTION_VALUE = _kg(KG.correctionValue)
KG_CORRECTION_PAPER = _kg(KG.correctionPaper)
KG_CORRECTION_SOURCE = _kg(KG.correctionSource)
PROV_ACTIVITY = NamedNode(PROV_IRI + "Activity")
PROV_WAS_GENERATED_BY = NamedNode(PROV_IRI + "wasGeneratedBy")
PROV_WAS_INFLUENCED_BY = NamedNode(PROV_IRI + "wasInfluencedBy")
# Every kg: term this module writes (a test checks that the ontology declares each one).
TERMS = (
    KG_CANON_DECISION, KG_DECIDED_CONCEPT, KG_RULE, KG_VARIANT, KG_PAPERS_AFFECTED,
    KG_TYPE_VOTE, KG_CORRECTION, KG_CORRECTION_ACTION, KG_CORRECTION_TARGET,
    KG_CORRECTION_VALUE, KG_CORRECTION_PAPER, KG_CORRECTION_SOURCE,
)  # fmt: skip


def correction_iri(iris: Iris, correction: Correction) -> str:
    """`{base}correction/{file slug}-{entry}`: stable for the same file."""
    return f"{iris.base}correction/{slug(correction.source or 'corrections')}-{correction.line}"


def add_decision_triples(
    out: TripleBuffer, corpus: Corpus, iris: Iris, concept_iri: Mapping[str, str]
) -> None:
    """Add the decisions, type votes and corrections of `corpus` to `out`."""
    by_line = {c.line: c for c in corpus.corrections}
    for decision in corpus.decisions:
        concept = concept_iri.get(decision.concept_key)
        if concept is None:
            continue
        name = slug(decision.rule.replace(":", "-"))
        if decision.correction:
            name += f"-{decision.correction}"
        node = f"{concept}/decision/{name}"
        add = out.add
        add(node, t.RDF_TYPE, *t.iri_term(KG_CANON_DECISION.value))
        add(node, KG_DECIDED_CONCEPT, *t.iri_term(concept))
        add(node, KG_RULE, *t.str_term(decision.rule))
        for variant in decision.variants:
            add(node, KG_VARIANT, *t.str_term(variant))
        add(node, KG_PAPERS_AFFECTED, *t.int_term(decision.papers))
        if decision.note:
            add(node, t.RDFS_COMMENT, *t.str_term(decision.note))
        correction = by_line.get(decision.correction)
        if correction is not None:
            activity = correction_iri(iris, correction)
            add(node, PROV_WAS_GENERATED_BY, *t.iri_term(activity))
            add(concept, PROV_WAS_INFLUENCED_BY, *t.iri_term(activity))
    for correction in corpus.corrections:
        _correction(out, iris, correction)
    for key, item in corpus.concepts.items():
        if item.type_disputed and key in concept_iri:
            for ctype, votes in item.type_votes:
                out.add(concept_iri[key], KG_TYPE_VOTE, *t.str_term(f"{ctype.value}: {votes}"))


def _correction(out: TripleBuffer, iris: Iris, correction: Correction) -> None:
    node = correction_iri(iris, correction)
    add = out.add
    add(node, t.RDF_TYPE, *t.iri_term(KG_CORRECTION.value))
    add(node, t.RDF_TYPE, *t.iri_term(PROV_ACTIVITY.value))
    add(node, KG_CORRECTION_ACTION, *t.str_term(correction.action.value))
    add(node, KG_CORRECTION_TARGET, *t.str_term(correction.concept))
    value = correction.into or correction.label or (
        correction.ctype.value if correction.ctype else None)
    if value:
        add(node, KG_CORRECTION_VALUE, *t.str_term(value))
    for paper in correction.papers:
        add(node, KG_CORRECTION_PAPER, *t.str_term(paper))
    add(node, KG_CORRECTION_SOURCE, *t.str_term(f"{correction.source}, entry {correction.line}"))
    if correction.note:
        add(node, t.RDFS_COMMENT, *t.str_term(correction.note))
