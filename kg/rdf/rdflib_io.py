"""Bridges to rdflib, for users of its API (and for tests): convert triples, load files.

rdflib is much slower than pyoxigraph on big graphs (../shared/STACK_NOTES.md); the build never
goes through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax import SAXException

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from kg.errors import InputError
from kg.namespaces import PREFIXES
from kg.rdf.formats import open_maybe_gzipped
from kg.rdf.terms import XSD_STRING

if TYPE_CHECKING:
    import rdflib


def to_rdflib(triples: Iterable[Triple]) -> rdflib.Graph:
    """An rdflib Graph holding `triples`, with the contract's prefixes bound.

    Plain `xsd:string` literals become rdflib literals without a datatype, as rdflib's own
    parsers produce them from `"text"`.
    """
    import rdflib

    graph = _new_graph()
    refs: dict[str, rdflib.URIRef] = {}

    def term(node: NamedNode | BlankNode | Literal | Triple) -> rdflib.term.Identifier:
        if isinstance(node, Triple):
            raise ValueError(f"quoted triple {node}: rdflib graphs cannot hold RDF-star terms")
        if isinstance(node, NamedNode):
            ref = refs.get(node.value)
            if ref is None:
                ref = refs[node.value] = rdflib.URIRef(node.value)
            return ref
        if isinstance(node, BlankNode):
            return rdflib.BNode(node.value)
        if node.language:
            return rdflib.Literal(node.value, lang=node.language)
        if node.datatype == XSD_STRING:
            return rdflib.Literal(node.value)
        return rdflib.Literal(node.value, datatype=term(node.datatype))

    graph.addN((term(t.subject), term(t.predicate), term(t.object), graph) for t in triples)
    return graph


def load_graph(path: str | PathLike[str]) -> rdflib.Graph:
    """Parse any RDF file rdflib reads (format by extension, `.gz` too) into a Graph.

    Raises InputError naming the file when it is missing, of an unknown format or malformed.
    """
    import rdflib.exceptions
    from rdflib.util import guess_format

    source = Path(path)
    gzipped = source.suffix.lower() == ".gz"
    fmt = guess_format(source.with_suffix("").name if gzipped else source.name)
    if fmt is None:
        raise InputError(
            "unknown RDF format; name it .ttl, .nt, .jsonld, .rdf, .n3, .trig or .nq "
            "(optionally .gz)",
            source=str(source),
        )
    if not source.is_file():
        raise InputError("no such file", source=str(source))
    graph = _new_graph()
    try:
        with open_maybe_gzipped(source) as stream:
            graph.parse(stream, format=fmt)
    except (SyntaxError, ValueError, SAXException, rdflib.exceptions.Error, OSError) as exc:
        # rdflib has no common parse-error class: Turtle raises BadSyntax (a SyntaxError),
        # N-Triples ParserError, JSON-LD JSONDecodeError (ValueError), RDF/XML SAX errors;
        # a broken .gz raises BadGzipFile (an OSError).
        raise InputError(f"cannot read it as {fmt}: {exc}", source=str(source)) from exc
    return graph


def _new_graph() -> rdflib.Graph:
    import rdflib

    graph = rdflib.Graph()
    for prefix, iri in PREFIXES.items():
        graph.bind(prefix, iri, replace=True)
    return graph
