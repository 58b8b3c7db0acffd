"""The `KG` namespace class and the shipped ontology declare the same terms."""

from __future__ import annotations

from importlib import resources

import rdflib

from kg.namespaces import KG, KG_IRI


def test_every_ontology_term_is_in_the_namespace_class_and_back() -> None:
    graph = rdflib.Graph().parse(
        data=resources.files("kg").joinpath("data", "ontology.ttl").read_text("utf-8"),
        format="turtle",
    )
    declared = {str(s)[len(KG_IRI):] for s in graph.subjects() if str(s).startswith(KG_IRI)}
    in_class = set(KG.__annotations__)
    assert declared - in_class == set(), "declare these in kg.namespaces.KG"
    assert in_class - declared == set(), "describe these in kg/data/ontology.ttl"


def test_a_typo_raises() -> None:
    try:
        KG.usse  # noqa: B018
    except AttributeError:
        return
    raise AssertionError("KG.usse should raise")
