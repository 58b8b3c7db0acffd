"""The terms the query page completes: the classes and properties the graph uses, with the
ontology's labels and comments where it has them (`GET /vocabulary`, built in a worker and
cached per source version like the pages).

The graph is asked for its distinct properties and classes (one scan; seconds on a big store,
once per version); the ontology adds the paperkg terms with their documentation, so completion
works with the ontology alone when the scan runs out of time.
"""

from __future__ import annotations

import json
from typing import Any

import pyoxigraph as ox

from kg.errors import KGError
from kg.namespaces import DEFAULT_BASE, PREFIXES
from kg.rdf.ontology import ontology_triples

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
_KINDS = {
    OWL + "Class": "class",
    RDFS + "Class": "class",
    OWL + "ObjectProperty": "property",
    OWL + "DatatypeProperty": "property",
    OWL + "AnnotationProperty": "property",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property": "property",
}
PROPERTIES = "SELECT DISTINCT ?term WHERE { ?s ?term ?o }"
CLASSES = "SELECT DISTINCT ?term WHERE { ?s a ?term }"
MAX_TERMS = 5000


def ontology_terms() -> dict[str, dict[str, str]]:
    """IRI -> {iri, kind, label, comment} for the classes and properties the ontology
    declares."""
    terms: dict[str, dict[str, str]] = {}
    described: list[tuple[str, str, ox.Literal]] = []
    for t in ontology_triples():
        subject, obj = t.subject, t.object
        if not isinstance(subject, ox.NamedNode):
            continue
        if t.predicate.value == RDF_TYPE and isinstance(obj, ox.NamedNode) and obj.value in _KINDS:
            terms[subject.value] = {"iri": subject.value, "kind": _KINDS[obj.value]}
        elif isinstance(obj, ox.Literal) and obj.language in (None, "", "en"):
            described.append((subject.value, t.predicate.value, obj))
    for iri, predicate, text in described:
        found = terms.get(iri)
        if found is None:
            continue
        if predicate == RDFS + "label":
            found["label"] = text.value
        elif predicate == RDFS + "comment":
            found["comment"] = text.value
    return terms


def graph_terms(source: Any) -> dict[str, dict[str, str]]:
    """IRI -> {iri, kind} for the properties and classes the source's graph uses (as many as
    the scans return before an error: an empty result on a source that refuses them)."""
    terms: dict[str, dict[str, str]] = {}
    for kind, query in (("property", PROPERTIES), ("class", CLASSES)):
        try:
            result = source.query(query, limit=MAX_TERMS)
        except KGError:
            continue
        for (term,) in result.rows:
            if isinstance(term, ox.NamedNode):
                terms.setdefault(term.value, {"iri": term.value, "kind": kind})
    return terms


def vocabulary_json(source: Any) -> bytes:
    """{"prefixes": {...}, "terms": [...]} as JSON: the graph's terms first documented by the
    ontology, then the ontology's other terms (sorted by IRI)."""
    documented = ontology_terms()
    used = graph_terms(source)
    terms = [
        {**documented.get(iri, {}), **entry, "used": True} for iri, entry in sorted(used.items())
    ]
    terms += [
        {**entry, "used": False} for iri, entry in sorted(documented.items()) if iri not in used
    ]
    document = {"prefixes": {"": DEFAULT_BASE, **PREFIXES}, "terms": terms}
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")
