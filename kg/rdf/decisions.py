"""Corpus-level decisions and people's corrections as RDF (docs/VOCABULARY.md, "Decisions").

Each `CanonDecision` becomes `{concept}/decision/{rule}` (`kg:CanonDecision`): the concept it
decided, the rule, the variants it concerns, how many papers' links it changed and a note, so
"why is LLM one node with large language model?" is answered in the graph. A concept whose
papers disagree on its type lists every `kg:typeVote` ("Method: 12"). Each correction that
applied becomes `{base}correction/{file}-{entry}` (`kg:Correction`, a `prov:Activity`) with
what the person wrote; the decisions it made are `prov:wasGeneratedBy` it and the concept it
changed `prov:wasInfluencedBy` it. Each node the hygiene filter dropped becomes
`{base}rejected/{key slug}` (`kg:Rejection`): its labels, the rule, the papers that linked to it,
so that a person can find it (`kg review`, the `rejected-concepts` query) and overrule it with a
correction `action: accept`.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyoxigraph import NamedNode

from kg.namespaces import KG, PROV_IRI
from kg.normalize import slug
from kg.rdf import terms as t
from kg.rdf.canonical import TripleBuffer
from kg.rdf.iris import Iris
from kg.types import Corpus, Correction, Rejection


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
KG_REJECTION = _kg(KG.Rejection)
KG_HYGIENE_RULE = _kg(KG.hygieneRule)
KG_REJECTED_LABEL = _kg(KG.rejectedLabel)
KG_REJECTED_IN = _kg(KG.rejectedIn)
PROV_ACTIVITY = NamedNode(PROV_IRI + "Activity")
PROV_WAS_GENERATED_BY = NamedNode(PROV_IRI + "wasGeneratedBy")
PROV_WAS_INFLUENCED_BY = NamedNode(PROV_IRI + "wasInfluencedBy")
# Every kg: term this module writes (a test checks that the ontology declares each one).
TERMS = (
    KG_CANON_DECISION, KG_DECIDED_CONCEPT, KG_RULE, KG_VARIANT, KG_PAPERS_AFFECTED,
    KG_TYPE_VOTE, KG_CORRECTION, KG_CORRECTION_ACTION, KG_CORRECTION_TARGET,
    KG_CORRECTION_VALUE, KG_CORRECTION_PAPER, KG_CORRECTION_SOURCE, KG_REJECTION,
    KG_HYGIENE_RULE, KG_REJECTED_LABEL, KG_REJECTED_IN,
)  # fmt: skip
# What each hygiene rule means (kg.canon.hygiene), written with each rejection.
HYGIENE_NOTES = {
    "quantity": "a number with a unit or multiplier, not a concept",
    "product": "a company, device or product name that no title is about",
    "fragment": "every mention is part of a longer word or of another concept's mention",
    "common-word": "an ordinary word, capitalised only where it stands (title, sentence start), "
                   "that more abstracts use as plain text than link to it",
}


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
    rejected_iri = iris.concepts(r.concept_key for r in corpus.rejections)
    for rejection in corpus.rejections:
        iri = rejected_iri[rejection.concept_key].replace(
            f"{iris.base}concept/", f"{iris.base}rejected/", 1)
        _rejection(out, iris, iri, rejection)
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


def _rejection(out: TripleBuffer, iris: Iris, node: str, rejection: Rejection) -> None:
    add = out.add
    add(node, t.RDF_TYPE, *t.iri_term(KG_REJECTION.value))
    add(node, t.RDFS_LABEL, *t.str_term(rejection.labels[0]))
    for label in rejection.labels[1:]:
        add(node, KG_REJECTED_LABEL, *t.str_term(label))
    add(node, KG_HYGIENE_RULE, *t.str_term(rejection.rule))
    for paper in rejection.papers:
        add(node, KG_REJECTED_IN, *t.iri_term(iris.paper(paper)))
    note = HYGIENE_NOTES.get(rejection.rule)
    if note:
        add(node, t.RDFS_COMMENT, *t.str_term(note))
