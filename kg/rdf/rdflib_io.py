"""Bridges to rdflib, for users of its API (and for tests): terms and triples both ways.
(Reading files into rdflib: `kg.rdf.io.read_rdflib`.)

rdflib is much slower than pyoxigraph on big graphs (../shared/STACK_NOTES.md); the build never
goes through it.

>>> term_to_rdflib(Literal("3", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
rdflib.term.Literal('3', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
>>> term_from_rdflib(term_to_rdflib(Literal("x")))
<Literal value=x datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from kg.errors import InputError
from kg.namespaces import PREFIXES
from kg.rdf.terms import XSD_STRING

if TYPE_CHECKING:
    import rdflib
    from rdflib.term import Identifier

#: A term of an RDF triple, as pyoxigraph has it.
OxTerm = NamedNode | BlankNode | Literal


def term_to_rdflib(term: OxTerm) -> Identifier:
    """The rdflib term equal to a pyoxigraph term.

    Plain `xsd:string` literals become rdflib literals without a datatype, as rdflib's own
    parsers produce them from `"text"`.
    """
    from rdflib.term import BNode, URIRef
    from rdflib.term import Literal as RdflibLiteral

    if isinstance(term, NamedNode):
        return URIRef(term.value)
    if isinstance(term, BlankNode):
        return BNode(term.value)
    if term.language:
        return RdflibLiteral(term.value, lang=term.language)
    if term.datatype == XSD_STRING:
        return RdflibLiteral(term.value)
    return RdflibLiteral(term.value, datatype=URIRef(term.datatype.value))


def term_from_rdflib(term: Identifier) -> OxTerm:
    """The pyoxigraph term equal to an rdflib term; InputError for variables and graphs."""
    from rdflib.term import BNode, URIRef
    from rdflib.term import Literal as RdflibLiteral

    if isinstance(term, URIRef):
        return NamedNode(str(term))
    if isinstance(term, BNode):
        return BlankNode(str(term))
    if isinstance(term, RdflibLiteral):
        if term.language:
            return Literal(str(term), language=term.language)
        if term.datatype is not None:
            return Literal(str(term), datatype=NamedNode(str(term.datatype)))
        return Literal(str(term))
    raise InputError(f"unsupported RDF term {term!r} (a variable or a quoted graph?)")


def triple_from_rdflib(triple: Iterable[Identifier]) -> Triple:
    """The pyoxigraph triple equal to an rdflib (subject, predicate, object)."""
    subject, predicate, obj = (term_from_rdflib(term) for term in triple)
    if isinstance(subject, Literal) or not isinstance(predicate, NamedNode):
        raise InputError(f"not an RDF triple: {subject} {predicate} {obj}")
    return Triple(subject, predicate, obj)


def to_rdflib(triples: Iterable[Triple]) -> rdflib.Graph:
    """An rdflib Graph holding `triples`, with the contract's prefixes bound."""
    import rdflib

    graph = bind_prefixes(rdflib.Graph())
    refs: dict[NamedNode, Identifier] = {}

    def term(node: NamedNode | BlankNode | Literal | Triple) -> Identifier:
        if isinstance(node, Triple):
            raise ValueError(f"quoted triple {node}: rdflib graphs cannot hold RDF-star terms")
        if isinstance(node, NamedNode):
            ref = refs.get(node)
            if ref is None:
                ref = refs[node] = term_to_rdflib(node)
            return ref
        return term_to_rdflib(node)

    graph.addN((term(t.subject), term(t.predicate), term(t.object), graph) for t in triples)
    return graph


def bind_prefixes(graph: rdflib.Graph) -> rdflib.Graph:
    """`graph`, with the contract's prefixes bound (rdflib writes Turtle with them)."""
    for prefix, iri in PREFIXES.items():
        graph.bind(prefix, iri, replace=True)
    return graph
