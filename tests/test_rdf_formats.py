"""GraphFormat: the formats `kg build --format` and output file names ask for."""

from __future__ import annotations

import pytest

from kg.errors import InputError
from kg.rdf import GraphFormat


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("ttl", GraphFormat.TURTLE),
        ("Turtle", GraphFormat.TURTLE),
        ("nt", GraphFormat.NTRIPLES),
        ("n-triples", GraphFormat.NTRIPLES),
        ("jsonld", GraphFormat.JSONLD),
        ("JSON-LD", GraphFormat.JSONLD),
    ],
)
def test_from_name(name: str, fmt: GraphFormat) -> None:
    assert GraphFormat.from_name(name) is fmt


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("out/graph.ttl", GraphFormat.TURTLE),
        ("graph.v2.NT", GraphFormat.NTRIPLES),
        ("graph.jsonld.gz", GraphFormat.JSONLD),
    ],
)
def test_from_path(path: str, fmt: GraphFormat) -> None:
    assert GraphFormat.from_path(path) is fmt


def test_unknown_names_and_extensions_say_what_works() -> None:
    with pytest.raises(InputError, match="unknown graph format 'xml'; use one of: ttl, nt, jsonld"):
        GraphFormat.from_name("xml")
    with pytest.raises(InputError, match=r"graph\.gz: cannot tell the graph format"):
        GraphFormat.from_path("graph.gz")
