"""RDF namespaces of the graph contract.

`KG` is the project's ontology namespace. Its IRI is permanent-style (w3id.org redirects are
the usual way to keep such IRIs resolvable); it never changes between releases. Resource IRIs
(papers, concepts, evidence) live under a base the user chooses with `--base`; `DEFAULT_BASE`
is used otherwise.

`KG` is a `DefinedNamespace`: `KG.uses` works, `KG.usse` raises, so a typo cannot mint a new
term silently.
"""

from __future__ import annotations

from rdflib.namespace import DefinedNamespace, Namespace
from rdflib.term import URIRef

KG_IRI = "https://w3id.org/paperkg/ontology#"
DEFAULT_BASE = "https://w3id.org/paperkg/resource/"

SCHEMA_IRI = "https://schema.org/"
DCTERMS_IRI = "http://purl.org/dc/terms/"
SKOS_IRI = "http://www.w3.org/2004/02/skos/core#"
PROV_IRI = "http://www.w3.org/ns/prov#"
RDF_IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_IRI = "http://www.w3.org/2000/01/rdf-schema#"
OWL_IRI = "http://www.w3.org/2002/07/owl#"
XSD_IRI = "http://www.w3.org/2001/XMLSchema#"


class KG(DefinedNamespace):
    """The paperkg ontology (see kg/data/ontology.ttl for labels and comments)."""

    _NS = Namespace(KG_IRI)
    _fail = True
    _warn = False  # pytest probes attributes such as `_mock_name`; a miss raises anyway

    # Concept classes (each rdfs:subClassOf skos:Concept)
    Model: URIRef
    Method: URIRef
    Task: URIRef
    Dataset: URIRef
    Metric: URIRef
    Concept: URIRef
    # Provenance classes
    Evidence: URIRef
    Sentence: URIRef
    Extractor: URIRef
    # Paper -> concept link properties (roles are sub-properties of kg:mentions)
    mentions: URIRef
    proposes: URIRef
    uses: URIRef
    addresses: URIRef
    evaluatesOn: URIRef
    measures: URIRef
    comparesWith: URIRef
    hasKeyword: URIRef
    # Evidence properties
    paper: URIRef
    concept: URIRef
    role: URIRef
    text: URIRef
    field: URIRef
    start: URIRef
    end: URIRef
    inSentence: URIRef
    # Concept properties
    acronym: URIRef
    paperCount: URIRef
    # Paper metadata without a standard term
    venue: URIRef
    status: URIRef
    authorList: URIRef
    doi: URIRef
    arxivId: URIRef
    # Concept -> concept relations and their evidence
    RelationEvidence: URIRef
    usedFor: URIRef
    basedOn: URIRef
    comparedWith: URIRef
    outperforms: URIRef
    evaluatedOn: URIRef
    relation: URIRef
    subjectConcept: URIRef
    subjectText: URIRef
    subjectStart: URIRef
    subjectEnd: URIRef
    objectConcept: URIRef
    objectText: URIRef
    objectStart: URIRef
    objectEnd: URIRef
    statedInPaper: URIRef
    statedInSentence: URIRef
    # Links to external vocabularies (Papers with Code, CSO)
    VocabularyMatch: URIRef
    VocabularyEntry: URIRef
    matchedConcept: URIRef
    matchTarget: URIRef
    matchProperty: URIRef
    matchMethod: URIRef
    matchSource: URIRef
    # Analytics written by `kg analyze` (kg/analyze): communities, centrality, trends, similarity
    Community: URIRef
    PaperSimilarity: URIRef
    ConceptAssociation: URIRef
    inCommunity: URIRef
    memberCount: URIRef
    linkStrength: URIRef
    pageRank: URIRef
    firstYear: URIRef
    lastYear: URIRef
    meanYear: URIRef
    growth: URIRef
    burstStart: URIRef
    burstEnd: URIRef
    burstWeight: URIRef
    emergingScore: URIRef
    similarTo: URIRef
    fromPaper: URIRef
    toPaper: URIRef
    score: URIRef
    sharedConcepts: URIRef
    relatedConcept: URIRef
    fromConcept: URIRef
    toConcept: URIRef
    associationStrength: URIRef
    sharedPapers: URIRef
    # Corpus-level decisions (kg/canon) and people's corrections
    CanonDecision: URIRef
    decidedConcept: URIRef
    rule: URIRef
    variant: URIRef
    papersAffected: URIRef
    typeVote: URIRef
    Correction: URIRef
    correctionAction: URIRef
    correctionTarget: URIRef
    correctionValue: URIRef
    correctionPaper: URIRef
    correctionSource: URIRef
    Rejection: URIRef
    hygieneRule: URIRef
    rejectedLabel: URIRef
    rejectedIn: URIRef


PREFIXES: dict[str, str] = {
    "kg": KG_IRI,
    "schema": SCHEMA_IRI,
    "dcterms": DCTERMS_IRI,
    "skos": SKOS_IRI,
    "prov": PROV_IRI,
    "rdf": RDF_IRI,
    "rdfs": RDFS_IRI,
    "owl": OWL_IRI,
    "xsd": XSD_IRI,
}
