"""The analytics as RDF (docs/VOCABULARY.md, "Analytics"), in the canonical triple order.

IRIs come from stable keys: communities are `{base}community/{n}` (1 = largest), a paper's
similar papers `{paper IRI}/similar/{other's last segment}`, a concept's associations
`{concept IRI}/related/{other's last segment}`. Numbers are written with fixed precision
(decimals rounded to 6 places, PageRank as a double to 6 significant digits) so the bytes repeat.

`is_analytics(triple)` tells the triples of a previous analysis apart, so that a new one
replaces them (`kg.analyze.run`).
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, Triple, parse

from kg.analyze.results import Analysis
from kg.namespaces import KG, XSD_IRI
from kg.rdf.canonical import predicate_key
from kg.rdf.terms import RDF_TYPE, RDFS_LABEL, XSD_GYEAR, XSD_INTEGER

XSD_DECIMAL = NamedNode(XSD_IRI + "decimal")
XSD_DOUBLE = NamedNode(XSD_IRI + "double")


def _kg(term: object) -> NamedNode:
    return NamedNode(str(term))


COMMUNITY = _kg(KG.Community)
PAPER_SIMILARITY = _kg(KG.PaperSimilarity)
CONCEPT_ASSOCIATION = _kg(KG.ConceptAssociation)
CLASSES = (COMMUNITY, PAPER_SIMILARITY, CONCEPT_ASSOCIATION)
IN_COMMUNITY = _kg(KG.inCommunity)
MEMBER_COUNT = _kg(KG.memberCount)
LINK_STRENGTH = _kg(KG.linkStrength)
PAGE_RANK = _kg(KG.pageRank)
FIRST_YEAR = _kg(KG.firstYear)
LAST_YEAR = _kg(KG.lastYear)
MEAN_YEAR = _kg(KG.meanYear)
GROWTH = _kg(KG.growth)
BURST_START = _kg(KG.burstStart)
BURST_END = _kg(KG.burstEnd)
BURST_WEIGHT = _kg(KG.burstWeight)
EMERGING_SCORE = _kg(KG.emergingScore)
SIMILAR_TO = _kg(KG.similarTo)
FROM_PAPER = _kg(KG.fromPaper)
TO_PAPER = _kg(KG.toPaper)
SCORE = _kg(KG.score)
SHARED_CONCEPTS = _kg(KG.sharedConcepts)
RELATED_CONCEPT = _kg(KG.relatedConcept)
FROM_CONCEPT = _kg(KG.fromConcept)
TO_CONCEPT = _kg(KG.toConcept)
ASSOCIATION_STRENGTH = _kg(KG.associationStrength)
SHARED_PAPERS = _kg(KG.sharedPapers)

#: Every property only the analytics write.
PREDICATES = frozenset({
    IN_COMMUNITY, MEMBER_COUNT, LINK_STRENGTH, PAGE_RANK, FIRST_YEAR, LAST_YEAR, MEAN_YEAR,
    GROWTH, BURST_START, BURST_END, BURST_WEIGHT, EMERGING_SCORE, SIMILAR_TO, FROM_PAPER,
    TO_PAPER, SCORE, SHARED_CONCEPTS, RELATED_CONCEPT, FROM_CONCEPT, TO_CONCEPT,
    ASSOCIATION_STRENGTH, SHARED_PAPERS,
})


def decimal(value: float) -> Literal:
    """An xsd:decimal rounded to 6 places, without trailing zeros (the form Oxigraph stores, so
    every engine shows the same text).

    >>> decimal(2 / 3).value, decimal(-0.0000001).value, decimal(20.0).value
    ('0.666667', '0', '20')
    """
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return Literal("0" if text in ("-0", "") else text, datatype=XSD_DECIMAL)


def double(value: float) -> Literal:
    """An xsd:double to 6 significant digits.

    >>> double(1 / 3).value
    '3.33333E-1'
    """
    mantissa, exponent = f"{value:.5E}".split("E")
    return Literal(f"{mantissa}E{int(exponent)}", datatype=XSD_DOUBLE)


def integer(value: int) -> Literal:
    return Literal(str(int(value)), datatype=XSD_INTEGER)


def year(value: int) -> Literal:
    return Literal(f"{value:04d}", datatype=XSD_GYEAR)


def community_iri(base: str, number: int) -> str:
    return f"{base}community/{number}"


def analytics_triples(analysis: Analysis, *, base: str) -> list[Triple]:
    """Every triple of the analysis, canonically ordered."""
    return [q.triple for q in parse(analytics_ntriples(analysis, base=base), RdfFormat.N_TRIPLES)]


def analytics_ntriples(analysis: Analysis, *, base: str) -> bytes:
    """Every triple of the analysis as N-Triples, in the canonical order of
    `kg.rdf.canonical` (subjects by IRI; rdf:type first, then predicates by IRI; objects by
    lexical value).

    Written as text and parsed once by pyoxigraph (`analytics_triples`): on the 35k-paper graph
    (1.9 M triples) making each `Triple` in Python took most of `kg analyze`'s time.
    """
    inc = analysis.incidence
    # subject -> (predicate key, object key, "<predicate> object") of each of its triples
    found: dict[str, list[tuple[str, str, str]]] = {}

    def add(subject: str, predicate: NamedNode, okey: str, obj: str) -> None:
        entry = (predicate_key(predicate), okey, f"<{predicate.value}> {obj}")
        lines = found.get(subject)
        if lines is None:
            found[subject] = [entry]
        else:
            lines.append(entry)

    for community, label in zip(analysis.communities, analysis.community_labels, strict=True):
        iri = community_iri(base, community.number)
        add(iri, RDF_TYPE, COMMUNITY.value, f"<{COMMUNITY.value}>")
        add(iri, RDFS_LABEL, label, str(Literal(label)))
        add(iri, MEMBER_COUNT, *_typed(str(len(community.members)), XSD_INTEGER))
        for member in community.members:
            add(inc.concepts[member], IN_COMMUNITY, iri, f"<{iri}>")
    for number, strength in analysis.link_strength.items():
        add(inc.concepts[number], LINK_STRENGTH, *_typed(str(int(strength)), XSD_INTEGER))
    for paper, rank in zip(inc.papers, analysis.paper_rank, strict=True):
        add(paper, PAGE_RANK, *_typed(double(rank).value, XSD_DOUBLE))
    for j, concept in enumerate(inc.concepts):
        add(concept, PAGE_RANK, *_typed(double(analysis.concept_rank[j]).value, XSD_DOUBLE))
        trend = analysis.trends[j]
        if trend is None:
            continue
        add(concept, FIRST_YEAR, *_typed(f"{trend.first_year:04d}", XSD_GYEAR))
        add(concept, LAST_YEAR, *_typed(f"{trend.last_year:04d}", XSD_GYEAR))
        add(concept, MEAN_YEAR, *_typed(decimal(trend.mean_year).value, XSD_DECIMAL))
        if trend.growth is not None:
            add(concept, GROWTH, *_typed(decimal(trend.growth).value, XSD_DECIMAL))
        if trend.burst is not None:
            add(concept, BURST_START, *_typed(f"{trend.burst.start:04d}", XSD_GYEAR))
            add(concept, BURST_END, *_typed(f"{trend.burst.end:04d}", XSD_GYEAR))
            add(concept, BURST_WEIGHT, *_typed(decimal(trend.burst.weight).value, XSD_DECIMAL))
        add(concept, EMERGING_SCORE, *_typed(decimal(trend.emerging).value, XSD_DECIMAL))
    # The similarity and association nodes (most of the triples on a big corpus) are whole
    # blocks in canonical order: no sort of their own.
    blocks: dict[str, str] = {}
    similarity = _Block(PAPER_SIMILARITY, FROM_PAPER, TO_PAPER, SCORE, SHARED_CONCEPTS)
    for s in analysis.similar:
        paper, other = inc.papers[s.paper], inc.papers[s.other]
        iri = f"{paper}/similar/{_last_segment(other)}"
        add(paper, SIMILAR_TO, other, f"<{other}>")
        blocks[iri] = similarity.lines(iri, f"<{paper}>", f"<{other}>",
                                       _typed(decimal(s.score).value, XSD_DECIMAL)[1],
                                       _typed(str(s.shared), XSD_INTEGER)[1])
    association = _Block(CONCEPT_ASSOCIATION, FROM_CONCEPT, TO_CONCEPT, ASSOCIATION_STRENGTH,
                         SHARED_PAPERS)
    for r in analysis.related:
        concept, other = inc.concepts[r.concept], inc.concepts[r.other]
        iri = f"{concept}/related/{_last_segment(other)}"
        add(concept, RELATED_CONCEPT, other, f"<{other}>")
        blocks[iri] = association.lines(iri, f"<{concept}>", f"<{other}>",
                                         _typed(decimal(r.strength).value, XSD_DECIMAL)[1],
                                         _typed(str(r.shared), XSD_INTEGER)[1])
    if found.keys() & blocks.keys():
        raise ValueError("an analytics node has the IRI of another subject")
    out: list[str] = []
    for subject in sorted(found.keys() | blocks.keys()):
        block = blocks.get(subject)
        if block is not None:
            out.append(block)
            continue
        entries = found[subject]
        entries.sort()
        last = None
        for pkey, okey, text in entries:
            if (pkey, okey) != last:  # equal keys: one triple added twice
                out.append(f"<{subject}> {text} .\n")
                last = (pkey, okey)
    return "".join(out).encode("utf-8")


def _typed(lexical: str, datatype: NamedNode) -> tuple[str, str]:
    """(sort key, N-Triples form) of a typed literal with a plain ASCII lexical form."""
    return lexical, f'"{lexical}"^^<{datatype.value}>'


class _Block:
    """The N-Triples lines of one node of a class with one value per predicate, in the
    canonical order of `kg.rdf.canonical` (rdf:type first, then the predicates by IRI)."""

    def __init__(self, cls: NamedNode, *predicates: NamedNode) -> None:
        self.cls = cls
        self.order = sorted(range(len(predicates)), key=lambda i: predicate_key(predicates[i]))
        self.predicates = predicates

    def lines(self, subject: str, *objects: str) -> str:
        head = f"<{subject}> "
        return head + f"<{RDF_TYPE.value}> <{self.cls.value}> .\n" + "".join(
            f"{head}<{self.predicates[i].value}> {objects[i]} .\n" for i in self.order)


def _last_segment(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1]


def is_analytics(triple: Triple | Quad, base: str) -> bool:
    """True for a triple a previous analysis wrote."""
    if triple.predicate in PREDICATES:
        return True
    if triple.predicate == RDF_TYPE:
        return triple.object in CLASSES
    subject = triple.subject
    return isinstance(subject, NamedNode) and subject.value.startswith(f"{base}community/")


def delete_update(base: str, index_graph: NamedNode) -> str:
    """A SPARQL update that removes a previous analysis from a store, and its community labels
    from the store's label index (`index_graph`). One DELETE per class and per predicate, so
    that each reads one index of the store instead of every triple."""
    classes = [f"DELETE WHERE {{ ?s a <{c.value}> ; ?p ?o }}" for c in CLASSES]
    predicates = [f"DELETE WHERE {{ ?s <{p.value}> ?o }}"
                  for p in sorted(PREDICATES, key=lambda p: p.value)]
    index = (f"DELETE {{ GRAPH <{index_graph.value}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH "
             f"<{index_graph.value}> {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?s), "
             f"\"{base}community/\")) }}")
    return ";\n".join(classes + predicates + [index])


def ask_query() -> str:
    """A SPARQL ASK: does the graph hold an analysis?"""
    return f"ASK {{ ?s <{PAGE_RANK.value}> ?o }}"
