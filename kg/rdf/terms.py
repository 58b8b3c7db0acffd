"""The vocabulary of docs/VOCABULARY.md as pyoxigraph terms, converted once at import.

`kg.namespaces.KG` (an rdflib `DefinedNamespace`, so a typo raises) is the source of truth for
the project's own terms; the few external terms are spelled here once. Building triples from
these module constants avoids re-validating IRIs for every triple.
"""

from __future__ import annotations

from enum import Enum

from pyoxigraph import Literal, NamedNode

from kg.namespaces import (
    DCTERMS_IRI,
    KG,
    OWL_IRI,
    PROV_IRI,
    RDF_IRI,
    RDFS_IRI,
    SCHEMA_IRI,
    SKOS_IRI,
    XSD_IRI,
)
from kg.types import ConceptType, Field, Role


def _kg(term: object) -> NamedNode:
    return NamedNode(str(term))


# rdf / rdfs / owl / xsd
RDF_TYPE = NamedNode(RDF_IRI + "type")
RDFS_LABEL = NamedNode(RDFS_IRI + "label")
RDFS_COMMENT = NamedNode(RDFS_IRI + "comment")
RDFS_SEE_ALSO = NamedNode(RDFS_IRI + "seeAlso")
RDFS_SUBCLASS_OF = NamedNode(RDFS_IRI + "subClassOf")
RDFS_SUBPROPERTY_OF = NamedNode(RDFS_IRI + "subPropertyOf")
OWL_ONTOLOGY = NamedNode(OWL_IRI + "Ontology")
XSD_STRING = NamedNode(XSD_IRI + "string")
XSD_INTEGER = NamedNode(XSD_IRI + "integer")
XSD_GYEAR = NamedNode(XSD_IRI + "gYear")

# schema.org
SCHEMA_SCHOLARLY_ARTICLE = NamedNode(SCHEMA_IRI + "ScholarlyArticle")
SCHEMA_COLLECTION = NamedNode(SCHEMA_IRI + "Collection")
SCHEMA_PERSON = NamedNode(SCHEMA_IRI + "Person")
SCHEMA_AUTHOR = NamedNode(SCHEMA_IRI + "author")
SCHEMA_NAME = NamedNode(SCHEMA_IRI + "name")
SCHEMA_KEYWORDS = NamedNode(SCHEMA_IRI + "keywords")
SCHEMA_DATE_PUBLISHED = NamedNode(SCHEMA_IRI + "datePublished")
SCHEMA_URL = NamedNode(SCHEMA_IRI + "url")
SCHEMA_CODE_REPOSITORY = NamedNode(SCHEMA_IRI + "codeRepository")
SCHEMA_SOFTWARE_VERSION = NamedNode(SCHEMA_IRI + "softwareVersion")
SCHEMA_SAME_AS = NamedNode(SCHEMA_IRI + "sameAs")

# Dublin Core terms
DCTERMS_IDENTIFIER = NamedNode(DCTERMS_IRI + "identifier")
DCTERMS_TITLE = NamedNode(DCTERMS_IRI + "title")
DCTERMS_ABSTRACT = NamedNode(DCTERMS_IRI + "abstract")
DCTERMS_IS_PART_OF = NamedNode(DCTERMS_IRI + "isPartOf")
DCTERMS_SUBJECT = NamedNode(DCTERMS_IRI + "subject")

# SKOS
SKOS_CONCEPT = NamedNode(SKOS_IRI + "Concept")
SKOS_CONCEPT_SCHEME = NamedNode(SKOS_IRI + "ConceptScheme")
SKOS_IN_SCHEME = NamedNode(SKOS_IRI + "inScheme")
SKOS_PREF_LABEL = NamedNode(SKOS_IRI + "prefLabel")
SKOS_ALT_LABEL = NamedNode(SKOS_IRI + "altLabel")

# PROV-O
PROV_SOFTWARE_AGENT = NamedNode(PROV_IRI + "SoftwareAgent")
PROV_WAS_ATTRIBUTED_TO = NamedNode(PROV_IRI + "wasAttributedTo")

# paperkg ontology
KG_EVIDENCE = _kg(KG.Evidence)
KG_SENTENCE = _kg(KG.Sentence)
KG_EXTRACTOR = _kg(KG.Extractor)
KG_MENTIONS = _kg(KG.mentions)
KG_HAS_KEYWORD = _kg(KG.hasKeyword)
KG_PAPER = _kg(KG.paper)
KG_CONCEPT = _kg(KG.concept)
KG_ROLE = _kg(KG.role)
KG_TEXT = _kg(KG.text)
KG_FIELD = _kg(KG.field)
KG_START = _kg(KG.start)
KG_END = _kg(KG.end)
KG_IN_SENTENCE = _kg(KG.inSentence)
KG_ACRONYM = _kg(KG.acronym)
KG_PAPER_COUNT = _kg(KG.paperCount)
KG_VENUE = _kg(KG.venue)
KG_STATUS = _kg(KG.status)
KG_AUTHOR_LIST = _kg(KG.authorList)
KG_DOI = _kg(KG.doi)
KG_ARXIV_ID = _kg(KG.arxivId)

# One class per concept type and one property per role; `KG[...]` raises on a name the
# ontology does not define, so a new enum member cannot silently mint an undeclared term.
TYPE_CLASS: dict[ConceptType, NamedNode] = {t: _kg(KG[t.value]) for t in ConceptType}
ROLE_PROPERTY: dict[Role, NamedNode] = {r: _kg(KG[r.value]) for r in Role}
FIELD_LITERAL: dict[Field, Literal] = {f: Literal(f.value) for f in Field}


class Deferred(Enum):
    """An object a `TripleBuffer` makes from its sort key only when it writes the triple: a
    large graph's labels and texts then wait as the plain strings the corpus holds anyway,
    not as a second copy inside a pyoxigraph term."""

    PLAIN = "plain literal"
    IRI = "named node"

    def make(self, key: str) -> Literal | NamedNode:
        return Literal(key) if self is Deferred.PLAIN else NamedNode(key)


def str_term(value: str) -> tuple[Deferred, str]:
    """A plain string literal, with its sort key (checked now: a bad value raises here)."""
    Literal(value)
    return Deferred.PLAIN, value


def int_term(value: int) -> tuple[Literal, str]:
    """An xsd:integer literal, with its sort key."""
    text = str(value)
    return Literal(text, datatype=XSD_INTEGER), text


def iri_term(value: str) -> tuple[Deferred, str]:
    """A named node, with its sort key (checked now: a bad IRI raises here)."""
    NamedNode(value)
    return Deferred.IRI, value
