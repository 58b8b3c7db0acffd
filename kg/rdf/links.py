"""Vocabulary matches (`Corpus.matches`) -> RDF, as docs/VOCABULARY.md specifies.

For each match: `concept skos:exactMatch|skos:closeMatch <entry>` and a `kg:VocabularyMatch`
node that records how it matched (RDF-star is not available in rdflib 7, so the statement about
the statement is a node of its own). Each matched entry, and every entry above it in the
vocabulary's hierarchy, becomes a `kg:VocabularyEntry` with its rdfs:label, its scheme and its
`skos:broader` entries, so that one property path reaches every kind of a thing:
`?paper kg:mentions/(skos:exactMatch|skos:closeMatch)/skos:broader* ?kind`.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from urllib.parse import unquote

from pyoxigraph import Literal, NamedNode

from kg.errors import KGError
from kg.namespaces import KG_IRI, SKOS_IRI
from kg.normalize import norm_key, slug
from kg.rdf import terms as t
from kg.rdf.canonical import TripleBuffer
from kg.types import VocabularyMatch
from kg.vocab.gazetteer import Gazetteer
from kg.vocab.matching import SCHEMES, broader_closure, name_key, scheme_of

# Terms of this module, declared in kg/data/ontology.ttl (a test checks each one is).
KG_VOCABULARY_MATCH = NamedNode(KG_IRI + "VocabularyMatch")
KG_VOCABULARY_ENTRY = NamedNode(KG_IRI + "VocabularyEntry")
KG_MATCHED_CONCEPT = NamedNode(KG_IRI + "matchedConcept")
KG_MATCH_TARGET = NamedNode(KG_IRI + "matchTarget")
KG_MATCH_PROPERTY = NamedNode(KG_IRI + "matchProperty")
KG_MATCH_METHOD = NamedNode(KG_IRI + "matchMethod")
KG_MATCH_SOURCE = NamedNode(KG_IRI + "matchSource")
SKOS_EXACT_MATCH = NamedNode(SKOS_IRI + "exactMatch")
SKOS_CLOSE_MATCH = NamedNode(SKOS_IRI + "closeMatch")
SKOS_BROADER = NamedNode(SKOS_IRI + "broader")
TERMS = (
    KG_VOCABULARY_MATCH, KG_VOCABULARY_ENTRY, KG_MATCHED_CONCEPT, KG_MATCH_TARGET,
    KG_MATCH_PROPERTY, KG_MATCH_METHOD, KG_MATCH_SOURCE,
)  # fmt: skip


def add_vocabulary_links(
    matches: Iterable[VocabularyMatch],
    concept_iri: dict[str, str],
    out: TripleBuffer,
    gazetteer: Gazetteer | None = None,
) -> None:
    """Add the triples of `matches` (concept keys -> IRIs by `concept_iri`) to `out`."""
    by_concept: dict[str, list[VocabularyMatch]] = defaultdict(list)
    for match in matches:
        if match.concept_key not in concept_iri:
            raise KGError(
                f"vocabulary match to {match.target} names concept {match.concept_key!r}, "
                "which is not in corpus.concepts: link only the corpus's concepts"
            )
        by_concept[concept_iri[match.concept_key]].append(match)
    if not by_concept:
        return  # no need to read the gazetteer
    gazetteer = gazetteer or Gazetteer.load()
    targets: set[str] = set()
    for concept, found in by_concept.items():
        for node, match in zip(_match_nodes(concept, found), found, strict=True):
            _add_match(out, concept, node, match)
            targets.add(match.target)
    closure = broader_closure(sorted(targets), gazetteer)
    for scheme in sorted({scheme_of(iri) for iri in closure}):
        out.add(scheme, t.RDF_TYPE, t.SKOS_CONCEPT_SCHEME, t.SKOS_CONCEPT_SCHEME.value)
        out.add(scheme, t.RDFS_LABEL, Literal(SCHEMES[scheme]), SCHEMES[scheme])
    for iri, parents in closure.items():
        _add_entry(out, iri, parents, gazetteer)


def _match_nodes(concept: str, matches: list[VocabularyMatch]) -> list[str]:
    """One IRI per match under the concept's, readable ("…/match/paperswithcode.com-method-
    adam"); targets whose slugs collide get a digest of the target appended."""
    slugs = [slug(m.target.split("://", 1)[-1]) for m in matches]
    return [
        f"{concept}/match/{s}"
        + ("-" + hashlib.sha256(m.target.encode()).hexdigest()[:8] if slugs.count(s) > 1 else "")
        for s, m in zip(slugs, matches, strict=True)
    ]


def _add_match(out: TripleBuffer, concept: str, node: str, match: VocabularyMatch) -> None:
    prop = SKOS_EXACT_MATCH if match.exact else SKOS_CLOSE_MATCH
    target = NamedNode(match.target)
    out.add(concept, prop, target, match.target)
    out.add(node, t.RDF_TYPE, KG_VOCABULARY_MATCH, KG_VOCABULARY_MATCH.value)
    out.add(node, KG_MATCHED_CONCEPT, NamedNode(concept), concept)
    out.add(node, KG_MATCH_TARGET, target, match.target)
    out.add(node, KG_MATCH_PROPERTY, prop, prop.value)
    out.add(node, KG_MATCH_METHOD, Literal(match.method), match.method)
    out.add(node, KG_MATCH_SOURCE, Literal(match.source), match.source)


def _add_entry(
    out: TripleBuffer, iri: str, parents: tuple[str, ...], gazetteer: Gazetteer
) -> None:
    # rdfs:label only: a skos:prefLabel would make label look-ups over the graph's concepts
    # ("LLM forms are one concept") find the entry as a second node.
    pref, _ = entry_labels(iri, gazetteer)
    out.add(iri, t.RDF_TYPE, KG_VOCABULARY_ENTRY, KG_VOCABULARY_ENTRY.value)
    out.add(iri, t.SKOS_IN_SCHEME, NamedNode(scheme_of(iri)), scheme_of(iri))
    out.add(iri, t.RDFS_LABEL, Literal(pref), pref)
    for parent in parents:
        out.add(iri, SKOS_BROADER, NamedNode(parent), parent)


def entry_labels(iri: str, gazetteer: Gazetteer) -> tuple[str, tuple[str, ...]]:
    """(preferred label, other labels) of a vocabulary entry: its name as the IRI was minted
    from it when a gazetteer row has it, else the first row's label, else the IRI's last
    segment; the other labels sorted, each spelling once.

    >>> entry_labels("https://paperswithcode.com/method/vae", Gazetteer.load())
    ('VAE', ('Variational Autoencoder',))
    """
    labels = list(dict.fromkeys(e.label for e in gazetteer.entries_for(iri)))
    if not labels:
        tail = unquote(iri.rstrip("/").rsplit("/", 1)[-1])
        return tail.replace("_", " ").replace("-", " "), ()
    own = name_key(iri)
    pref = next((label for label in labels if norm_key(label) == own), labels[0])
    return pref, tuple(sorted(label for label in labels if label != pref))
