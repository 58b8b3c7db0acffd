"""Vocabulary links as RDF (kg.rdf.links): the triples, the ontology and SHACL shapes, and the
named queries `papers-about-kind` and `vocabulary-matches` on a hand-made graph."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Triple

from kg.namespaces import KG_IRI, SKOS_IRI
from kg.query import open_source, run_named
from kg.query.formats import compact
from kg.query.sources import Source
from kg.rdf import links as rl
from kg.rdf.build import build_triples
from kg.rdf.canonical import TripleBuffer
from kg.rdf.ontology import ontology_path, shapes_path
from kg.rdf.sample import sample_corpus
from kg.types import VocabularyMatch
from kg.vocab.gazetteer import Gazetteer

FIXTURE = Path(__file__).parent / "fixtures" / "link_graph.ttl"
B = "https://w3id.org/paperkg/resource/"
P = "https://paperswithcode.com/"
SKOS = SKOS_IRI


def _ntriples(triples: list[Triple]) -> list[str]:
    return [str(t) for t in triples]


def test_matches_become_mapping_triples_match_nodes_and_entries() -> None:
    gazetteer = Gazetteer.load()
    out = TripleBuffer()
    matches = [
        VocabularyMatch("transformer", P + "method/transformer", True, "label", "pwc-method"),
        VocabularyMatch("transformer", P + "method/gpt-2", False, "alias", "pwc-method"),
    ]
    rl.add_vocabulary_links(matches, {"transformer": B + "concept/transformer"}, out, gazetteer)
    got = _ntriples(out.triples())
    concept, match = f"<{B}concept/transformer>", f"<{B}concept/transformer/match/"
    method, category = f"<{P}method/transformer>", f"<{P}methods/category/transformers>"
    kg = f"<{KG_IRI}"
    assert f"{concept} <{SKOS}exactMatch> {method}" in got
    assert f"{concept} <{SKOS}closeMatch> <{P}method/gpt-2>" in got
    node = f"{match}paperswithcode.com-method-transformer>"
    assert [t for t in got if t.startswith(node)] == [
        f"{node} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {kg}VocabularyMatch>",
        f"{node} {kg}matchMethod> \"label\"",
        f"{node} {kg}matchProperty> <{SKOS}exactMatch>",
        f"{node} {kg}matchSource> \"pwc-method\"",
        f"{node} {kg}matchTarget> {method}",
        f"{node} {kg}matchedConcept> {concept}",
    ]
    # The matched entry, and the collection above it, with labels, scheme and broader link.
    assert f"{method} <{SKOS}broader> {category}" in got
    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    assert f"{method} {label} \"Transformer\"" in got
    assert f"{category} {label} \"Transformers\"" in got
    assert not any(t.startswith(method) and f"<{SKOS}prefLabel>" in t for t in got)
    assert f"{category} <{SKOS}inScheme> <https://paperswithcode.com>" in got
    scheme_label = '<https://paperswithcode.com> <http://www.w3.org/2000/01/rdf-schema#label>'
    assert f'{scheme_label} "Papers with Code"' in got
    assert not any("cso.kmi" in t for t in got)  # no CSO entry matched: no CSO scheme node


def test_a_match_to_a_concept_outside_the_corpus_is_refused() -> None:
    from kg.errors import KGError

    match = VocabularyMatch("ghost", P + "method/adam", True, "label", "pwc-method")
    with pytest.raises(KGError, match=r"'ghost', which is not in corpus\.concepts"):
        rl.add_vocabulary_links([match], {}, TripleBuffer())


def test_colliding_match_slugs_get_a_digest() -> None:
    matches = [
        VocabularyMatch("x", "https://cso.kmi.open.ac.uk/topics/a_b", True, "label", "cso"),
        VocabularyMatch("x", "https://cso.kmi.open.ac.uk/topics/a%20b", True, "label", "cso"),
    ]
    nodes = rl._match_nodes(B + "concept/x", matches)
    assert len(set(nodes)) == 2 and all("/match/cso.kmi.open.ac.uk-topics-a" in n for n in nodes)


def test_every_term_of_the_module_is_declared_in_the_ontology() -> None:
    text = ontology_path().read_text(encoding="utf-8")
    for term in rl.TERMS:
        assert f"kg:{term.value.removeprefix(KG_IRI)} a owl:" in text


def _built_graph() -> list[Triple]:
    corpus = sample_corpus()
    key = next(iter(corpus.concepts))
    corpus.matches = [VocabularyMatch(key, P + "method/transformer", True, "label", "pwc-method")]
    return build_triples(corpus)


def _validate(triples: list[Triple]) -> tuple[bool, str]:
    import pyshacl
    import rdflib

    graph = rdflib.Graph()
    graph.parse(data="\n".join(f"{t} ." for t in triples), format="nt")
    conforms, _, report = pyshacl.validate(
        graph, shacl_graph=rdflib.Graph().parse(shapes_path()),
        ont_graph=rdflib.Graph().parse(ontology_path()),
    )  # fmt: skip
    return conforms, report


def test_a_built_graph_with_matches_conforms_to_the_shapes() -> None:
    triples = _built_graph()
    assert any(t.predicate.value == SKOS + "exactMatch" for t in triples)
    conforms, report = _validate(triples)
    assert conforms, report


def test_the_shapes_catch_a_match_node_without_its_mapping_triple() -> None:
    triples = [t for t in _built_graph() if t.predicate.value != SKOS + "exactMatch"]
    conforms, report = _validate(triples)
    assert not conforms
    assert "has no mapping triple" in report


def test_the_shapes_catch_an_unknown_match_method() -> None:
    method = NamedNode(KG_IRI + "matchMethod")
    triples = [
        Triple(t.subject, t.predicate, Literal("guess")) if t.predicate == method else t
        for t in _built_graph()
    ]
    conforms, _ = _validate(triples)
    assert not conforms


def test_the_fixture_graph_conforms_to_the_shapes() -> None:
    import pyshacl
    import rdflib

    conforms, _, report = pyshacl.validate(
        rdflib.Graph().parse(FIXTURE), shacl_graph=rdflib.Graph().parse(shapes_path()),
        ont_graph=rdflib.Graph().parse(ontology_path()),
    )  # fmt: skip
    assert conforms, report


@pytest.fixture(scope="module", params=["rdflib", "oxigraph"])
def source(request: pytest.FixtureRequest) -> Source:
    opened = open_source(FIXTURE, engine=request.param)
    request.addfinalizer(opened.close)
    return opened


def _rows(source: Source, name: str, params: dict[str, str]) -> list[list[str]]:
    return [[compact(term) for term in row] for row in run_named(source, name, params).rows]


def test_papers_about_any_kind_of_diffusion_model(source: Source) -> None:
    """p3 names the concept; p1 and p2 name kinds of it (LDM and DDPM are narrower entries);
    p4 names neither."""
    rows = _rows(source, "papers-about-kind", {"concept": "diffusion model"})
    assert rows == [
        ["paper/p3", "Diffusion survey", "2025", "concept/diffusion-model", "diffusion model"],
        ["paper/p1", "Latent diffusion", "2024", "concept/latent-diffusion-model",
         "latent diffusion model"],
        ["paper/p2", "Denoising", "2023", "concept/ddpm", "DDPM"],
    ]  # fmt: skip


def test_papers_about_kind_by_an_entry_label_and_two_levels_up(source: Source) -> None:
    rows = _rows(source, "papers-about-kind", {"concept": "generative models"})
    assert [r[0] for r in rows] == ["paper/p3", "paper/p1", "paper/p2"]


def test_papers_about_kind_of_a_leaf_and_of_an_unlinked_concept(source: Source) -> None:
    assert [r[0] for r in _rows(source, "papers-about-kind", {"concept": "DDPM"})] == ["paper/p2"]
    assert [r[0] for r in _rows(source, "papers-about-kind", {"concept": "gan"})] == ["paper/p4"]
    assert _rows(source, "papers-about-kind", {"concept": "no such thing"}) == []


def test_vocabulary_matches_of_a_concept(source: Source) -> None:
    rows = _rows(source, "vocabulary-matches", {"concept": "Diffusion Models"})
    assert rows == [
        ["concept/diffusion-model", "diffusion model", "skos:exactMatch",
         "https://cso.kmi.open.ac.uk/topics/diffusion_models", "diffusion models",
         "https://cso.kmi.open.ac.uk", "label", "cso"],
        ["concept/diffusion-model", "diffusion model", "skos:exactMatch",
         P + "methods/category/diffusion-models", "Diffusion Models", "https://paperswithcode.com",
         "label", "pwc-collection"],
    ]  # fmt: skip


def test_vocabulary_matches_of_an_unlinked_concept_and_of_all(source: Source) -> None:
    assert _rows(source, "vocabulary-matches", {"concept": "GAN"}) == [
        ["concept/gan", "GAN", "", "", "", "", "", ""]
    ]
    every = _rows(source, "vocabulary-matches", {})
    assert [(r[1], r[6]) for r in every] == [
        ("Adam", "label"), ("DDPM", "label"), ("diffusion model", "label"),
        ("diffusion model", "label"), ("latent diffusion model", "spelling variant"),
    ]  # fmt: skip


def test_a_concept_whose_label_is_a_vocabulary_label_is_not_confused(source: Source) -> None:
    """Entries are kg:VocabularyEntry, not skos:Concept: they are never rows of their own."""
    rows = _rows(source, "vocabulary-matches", {"concept": "Generative Models"})
    assert rows == []


def test_build_triples_without_matches_has_no_vocabulary_terms() -> None:
    corpus = sample_corpus()
    corpus.matches = []
    mapping = (SKOS + "exactMatch", SKOS + "closeMatch")
    assert not any(t.predicate.value in mapping for t in build_triples(corpus))
