"""RDF terms across the two engines: results use pyoxigraph terms, whichever engine ran.

A result term is a `pyoxigraph.NamedNode`, `BlankNode` or `Literal` (`.value`, and for
literals `.datatype` and `.language`). Bindings may be given as pyoxigraph or rdflib terms, or
as plain Python values (`str` -> xsd:string literal, `int`, `float`, `bool`).

>>> to_term("diffusion model")
<Literal value=diffusion model datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>
>>> to_rdflib(to_term(3))
rdflib.term.Literal('3', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from kg.errors import QueryError

if TYPE_CHECKING:
    from rdflib.term import Identifier

Term = ox.NamedNode | ox.BlankNode | ox.Literal

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = ox.NamedNode(XSD + "string")


def to_term(value: Any) -> Term:
    """A binding value as a pyoxigraph term (see module docstring for what is accepted)."""
    if isinstance(value, ox.NamedNode | ox.BlankNode | ox.Literal):
        return value
    if isinstance(value, bool):
        return ox.Literal("true" if value else "false", datatype=ox.NamedNode(XSD + "boolean"))
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode(XSD + "integer"))
    if isinstance(value, float):
        return ox.Literal(repr(value), datatype=ox.NamedNode(XSD + "double"))
    if isinstance(value, str) and not _is_rdflib_term(value):
        return ox.Literal(value)
    if _is_rdflib_term(value):
        return from_rdflib(value)
    raise QueryError(f"cannot bind {value!r} ({type(value).__name__}): give a str, int or term")


def _is_rdflib_term(value: Any) -> bool:
    from rdflib.term import Identifier

    return isinstance(value, Identifier)


def from_rdflib(term: Identifier) -> Term:
    """The pyoxigraph term equal to an rdflib term."""
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise QueryError(f"unsupported RDF term {term!r} (a variable or a quoted graph?)")


def triple_from_rdflib(triple: Iterable[Identifier]) -> ox.Triple:
    """The pyoxigraph triple equal to an rdflib (subject, predicate, object)."""
    subject, predicate, obj = (from_rdflib(term) for term in triple)
    if isinstance(subject, ox.Literal) or not isinstance(predicate, ox.NamedNode):
        raise QueryError(f"not an RDF triple: {subject} {predicate} {obj}")
    return ox.Triple(subject, predicate, obj)


def to_rdflib(term: Term) -> Identifier:
    """The rdflib term equal to a pyoxigraph term (xsd:string literals become plain)."""
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    if term.datatype == XSD_STRING:
        return Literal(term.value)
    return Literal(term.value, datatype=URIRef(term.datatype.value))
