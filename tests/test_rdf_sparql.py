"""SPARQL (rdflib) over the built sample graph: the contract's evidence example and offsets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import rdflib

from kg.namespaces import KG
from kg.rdf import build_triples, to_rdflib
from kg.rdf.ontology import ontology_path
from kg.rdf.sample import sample_corpus

VOCABULARY = Path(__file__).resolve().parents[1] / "docs" / "VOCABULARY.md"


@pytest.fixture(scope="module")
def graph() -> rdflib.Graph:
    return to_rdflib(build_triples(sample_corpus()))


def doc_example_query() -> str:
    """The SPARQL block of docs/VOCABULARY.md, as the doc shows it."""
    blocks = re.findall(r"```sparql\n(.*?)```", VOCABULARY.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "docs/VOCABULARY.md should hold exactly one ```sparql example"
    return blocks[0]


def test_the_documented_evidence_query_answers(graph: rdflib.Graph) -> None:
    rows = {
        (str(r.text), int(r.start), int(r.end), str(r.sentence), str(r.extractor))
        for r in graph.query(doc_example_query())
    }
    title = "LQCA: Long Question Coreference Adaptation"
    second = (
        "We propose Long Question Coreference Adaptation (LQCA), which resolves coreference "
        "resolution chains before answering."
    )
    third = "On LongBench, LQCA improves accuracy over LLMs without adaptation."
    assert rows == {
        ("LQCA", 0, 4, title, "paperkg rules"),
        ("Long Question Coreference Adaptation", 6, 42, title, "paperkg rules"),
        ("Long Question Coreference Adaptation", 69, 105, second, "paperkg rules"),
        ("LQCA", 107, 111, second, "paperkg rules"),
        ("LQCA", 107, 111, second, "paperkg gazetteer"),
        ("LQCA", 191, 195, third, "paperkg rules"),
    }


def test_every_evidence_text_is_the_substring_of_its_field(graph: rdflib.Graph) -> None:
    query = """
    PREFIX kg: <https://w3id.org/paperkg/ontology#>
    PREFIX dcterms: <http://purl.org/dc/terms/>
    SELECT ?e ?field ?text ?start ?end ?source WHERE {
      ?e a kg:Evidence ; kg:paper ?paper ; kg:field ?field ; kg:text ?text ;
         kg:start ?start ; kg:end ?end .
      OPTIONAL { ?paper dcterms:title ?title }
      OPTIONAL { ?paper dcterms:abstract ?abstract }
      BIND (IF(?field = "title", ?title, ?abstract) AS ?source)
      FILTER (?field != "keywords")
    }"""
    rows = list(graph.query(query))
    assert len(rows) == 19  # every evidence of the sample outside the keywords
    check = """
    PREFIX kg: <https://w3id.org/paperkg/ontology#>
    PREFIX dcterms: <http://purl.org/dc/terms/>
    SELECT (COUNT(?e) AS ?n) WHERE {
      ?e a kg:Evidence ; kg:paper ?paper ; kg:field ?field ; kg:text ?text ;
         kg:start ?start ; kg:end ?end .
      ?paper ?prop ?source .
      FILTER ((?field = "title" && ?prop = dcterms:title)
              || (?field = "abstract" && ?prop = dcterms:abstract))
      FILTER (SUBSTR(?source, ?start + 1, ?end - ?start) = ?text)
    }"""
    (matched,) = next(iter(graph.query(check)))
    assert int(matched) == len(rows)
    for row in rows:  # the same, in Python, for a readable failure
        assert str(row.source)[int(row.start) : int(row.end)] == str(row.text), row.e


def test_sentence_nodes_hold_their_mentions(graph: rdflib.Graph) -> None:
    query = """
    PREFIX kg: <https://w3id.org/paperkg/ontology#>
    SELECT ?e WHERE {
      ?e kg:start ?s ; kg:end ?t ; kg:field ?f ;
         kg:inSentence [ kg:start ?ss ; kg:end ?st ; kg:field ?sf ] .
      FILTER (?sf != ?f || ?ss > ?s || ?st < ?t)
    }"""
    assert list(graph.query(query)) == []


def test_keyword_evidence_indexes_the_joined_keywords() -> None:
    corpus = sample_corpus()
    joined = "; ".join(corpus.papers[0].keywords)
    graph = to_rdflib(build_triples(corpus))
    query = """
    PREFIX kg: <https://w3id.org/paperkg/ontology#>
    SELECT ?text ?start ?end WHERE {
      ?e a kg:Evidence ; kg:field "keywords" ; kg:text ?text ; kg:start ?start ; kg:end ?end
    }"""
    rows = list(graph.query(query))
    assert len(rows) == 2
    for text, start, end in rows:
        assert joined[int(start) : int(end)] == str(text)


def test_the_ontology_declares_every_kg_term_with_label_and_comment() -> None:
    ontology = rdflib.Graph().parse(ontology_path())
    label, comment = rdflib.RDFS.label, rdflib.RDFS.comment
    for name in KG.__annotations__:
        term = rdflib.URIRef(str(KG[name]))
        assert (term, label, None) in ontology, f"kg:{name} has no rdfs:label"
        assert (term, comment, None) in ontology, f"kg:{name} has no rdfs:comment"
    assert not any(isinstance(n, rdflib.BNode) for t in ontology for n in t)


def test_every_kg_term_used_in_a_graph_is_declared(graph: rdflib.Graph) -> None:
    declared = set(rdflib.Graph().parse(ontology_path()).subjects())
    used = {n for t in graph for n in t if isinstance(n, rdflib.URIRef)}
    undeclared = {n for n in used if str(n).startswith(str(KG._NS)) and n not in declared}
    assert undeclared == set()


def test_ontology_version_is_the_package_version() -> None:
    import kg

    ontology = rdflib.Graph().parse(ontology_path())
    versions = set(ontology.objects(None, rdflib.OWL.versionInfo))
    assert versions == {rdflib.Literal(kg.__version__)}
