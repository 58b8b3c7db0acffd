"""The built graph conforms to kg/data/shapes.ttl; deliberately broken graphs do not."""

from __future__ import annotations

from collections.abc import Callable

import pyshacl
import pytest
import rdflib
from rdflib import RDF, Literal, URIRef

from kg.namespaces import KG
from kg.rdf import build_triples, to_rdflib
from kg.rdf.ontology import shapes_path
from kg.rdf.sample import sample_corpus

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
B = "https://w3id.org/paperkg/resource/"
BERT = URIRef(B + "concept/bert")
P1 = URIRef(B + "paper/2501.00001")
LONGBENCH = URIRef(B + "concept/longbench")
EVIDENCE = URIRef(B + "paper/2501.00001/evidence/abstract-180-189")


@pytest.fixture(scope="module")
def shapes() -> rdflib.Graph:
    return rdflib.Graph().parse(shapes_path())


def validate(graph: rdflib.Graph, shapes: rdflib.Graph) -> tuple[bool, rdflib.Graph, str]:
    conforms, report, text = pyshacl.validate(
        graph, shacl_graph=shapes, inference="none", advanced=True
    )
    assert isinstance(report, rdflib.Graph)
    return bool(conforms), report, str(text)


def built(include_ontology: bool = True) -> rdflib.Graph:
    return to_rdflib(build_triples(sample_corpus(), include_ontology=include_ontology))


@pytest.mark.parametrize("include_ontology", [True, False])
def test_built_graph_conforms(shapes: rdflib.Graph, include_ontology: bool) -> None:
    conforms, _, text = validate(built(include_ontology), shapes)
    assert conforms, text


def two_type_classes(g: rdflib.Graph) -> None:
    g.add((BERT, RDF.type, URIRef(str(KG.Method))))


def evidence_without_offsets(g: rdflib.Graph) -> None:
    g.remove((EVIDENCE, URIRef(str(KG.start)), None))
    g.remove((EVIDENCE, URIRef(str(KG.end)), None))


def link_without_mentions(g: rdflib.Graph) -> None:
    g.remove((P1, URIRef(str(KG.mentions)), LONGBENCH))


def two_roles(g: rdflib.Graph) -> None:
    g.add((P1, URIRef(str(KG.uses)), LONGBENCH))


def text_off_its_offsets(g: rdflib.Graph) -> None:
    g.set((EVIDENCE, URIRef(str(KG.text)), Literal("LongBenc")))


def alt_label_equal_to_pref_label(g: rdflib.Graph) -> None:
    g.add((BERT, rdflib.SKOS.altLabel, Literal("BERT")))


@pytest.mark.parametrize(
    ("breakage", "offender", "message"),
    [
        (two_type_classes, BERT, "exactly one kg: type class"),
        (evidence_without_offsets, EVIDENCE, None),
        (link_without_mentions, P1, "has a role property to"),
        (link_without_mentions, EVIDENCE, "is for a concept its paper does not kg:mentions"),
        (two_roles, P1, "more than one role property"),
        (text_off_its_offsets, EVIDENCE, "kg:text is not the substring"),
        (alt_label_equal_to_pref_label, BERT, None),
    ],
)
def test_broken_graph_does_not_conform(
    shapes: rdflib.Graph,
    breakage: Callable[[rdflib.Graph], None],
    offender: URIRef,
    message: str | None,
) -> None:
    graph = built()
    breakage(graph)
    conforms, report, text = validate(graph, shapes)
    assert not conforms
    # Node shapes report the offender as focus node; whole-graph checks as sh:value.
    results = [
        r
        for r in report.subjects(RDF.type, SH.ValidationResult)
        if offender in (report.value(r, SH.focusNode), report.value(r, SH.value))
    ]
    assert results, text
    if message:
        messages = [str(report.value(r, SH.resultMessage)) for r in results]
        assert any(message in m for m in messages), messages
