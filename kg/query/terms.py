"""RDF terms across the two engines: results use pyoxigraph terms, whichever engine ran.

A result term is a `pyoxigraph.NamedNode`, `BlankNode` or `Literal` (`.value`, and for
literals `.datatype` and `.language`). Bindings may be given as pyoxigraph or rdflib terms, or
as plain Python values (`str` -> xsd:string literal, `int`, `float`, `bool`).

>>> to_term("diffusion model")
<Literal value=diffusion model datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>
>>> to_term(3).datatype.value
'http://www.w3.org/2001/XMLSchema#integer'
"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox

from kg.errors import InputError, QueryError
from kg.rdf.rdflib_io import term_from_rdflib

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
        try:
            return term_from_rdflib(value)
        except InputError as exc:
            raise QueryError(f"cannot bind {value!r}: {exc}") from exc
    raise QueryError(f"cannot bind {value!r} ({type(value).__name__}): give a str, int or term")


def _is_rdflib_term(value: Any) -> bool:
    from rdflib.term import Identifier

    return isinstance(value, Identifier)
