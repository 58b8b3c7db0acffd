"""The RDF serialisations paperkg writes, as an Enum (never loose strings).

>>> GraphFormat.from_name("ttl") is GraphFormat.TURTLE
True
>>> GraphFormat.from_path("graph.nt.gz")
<GraphFormat.NTRIPLES: 'nt'>
>>> GraphFormat.JSONLD.extension
'.jsonld'
"""

from __future__ import annotations

from enum import Enum
from os import PathLike

from pyoxigraph import RdfFormat

from kg.errors import InputError
from kg.rdf.io import format_from_name

_ALIASES = {
    "ttl": "ttl",
    "turtle": "ttl",
    "nt": "nt",
    "ntriples": "nt",
    "n-triples": "nt",
    "jsonld": "jsonld",
    "json-ld": "jsonld",
}


class GraphFormat(Enum):
    """A graph serialisation; the value is its CLI name (`--format ttl|nt|jsonld`)."""

    TURTLE = "ttl"
    NTRIPLES = "nt"
    JSONLD = "jsonld"

    @property
    def extension(self) -> str:
        """The file extension, with its dot."""
        return "." + self.value

    @property
    def rdf_format(self) -> RdfFormat:
        """The pyoxigraph format."""
        return _RDF_FORMAT[self]

    @property
    def rdflib_format(self) -> str:
        """The rdflib parser/serializer name."""
        return _RDFLIB_FORMAT[self]

    @property
    def media_type(self) -> str:
        return self.rdf_format.media_type

    @classmethod
    def from_name(cls, name: str) -> GraphFormat:
        """'ttl'/'turtle', 'nt'/'ntriples', 'jsonld'/'json-ld' (any case)."""
        value = _ALIASES.get(name.strip().lower())
        if value is None:
            raise InputError(f"unknown graph format {name!r}; use one of: ttl, nt, jsonld")
        return cls(value)

    @classmethod
    def from_path(cls, path: str | PathLike[str]) -> GraphFormat:
        """The format of a file name by its extension (a trailing `.gz` is ignored)."""
        found = format_from_name(path)
        if found is None or found.name not in _WRITTEN:
            raise InputError(
                "cannot tell the graph format from the file name; "
                "name it .ttl, .nt or .jsonld (optionally .gz) or pass --format",
                source=str(path),
            )
        return cls(found.name)


_WRITTEN = {f.value for f in GraphFormat}
_RDF_FORMAT = {
    GraphFormat.TURTLE: RdfFormat.TURTLE,
    GraphFormat.NTRIPLES: RdfFormat.N_TRIPLES,
    GraphFormat.JSONLD: RdfFormat.JSON_LD,
}
_RDFLIB_FORMAT = {
    GraphFormat.TURTLE: "turtle",
    GraphFormat.NTRIPLES: "nt",
    GraphFormat.JSONLD: "json-ld",
}
