"""The RDF stage: Corpus -> triples (docs/VOCABULARY.md) -> Turtle / N-Triples / JSON-LD.

>>> from kg.types import Corpus, Paper
>>> triples = build_triples(Corpus(papers=[Paper(id="p1", abstract="Hi.")]), include_ontology=False)
>>> len(triples), str(triples[0].subject)
(5, '<https://w3id.org/paperkg/resource/concepts>')
"""

from __future__ import annotations

from kg.rdf.build import build_triples
from kg.rdf.formats import GraphFormat
from kg.rdf.io import open_graph, read_rdflib
from kg.rdf.rdflib_io import to_rdflib
from kg.rdf.serialize import serialize_graph, write_graph

__all__ = [
    "GraphFormat",
    "build_triples",
    "open_graph",
    "read_rdflib",
    "serialize_graph",
    "to_rdflib",
    "write_graph",
]
