"""What build_triples puts in the graph (and refuses), beyond the golden file."""

from __future__ import annotations

import dataclasses
import logging

import pytest
import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode
from rdflib import RDF, SKOS, URIRef

from kg.errors import InputError, KGError
from kg.namespaces import KG, SCHEMA_IRI
from kg.rdf import build_triples, to_rdflib
from kg.rdf.ontology import ontology_triples
from kg.rdf.sample import mention, sample_corpus
from kg.types import Concept, ConceptType, Corpus, Field, Link, Mention, Paper, Role, Span

B = "https://w3id.org/paperkg/resource/"
SCHEMA = rdflib.Namespace(SCHEMA_IRI)
P1, P2 = URIRef(B + "paper/2501.00001"), URIRef(B + "paper/a%2Fb%20c%23d")


def kg(name: str) -> URIRef:
    return URIRef(str(KG[name]))


def graph_of(corpus: Corpus, **kwargs: object) -> rdflib.Graph:
    return to_rdflib(build_triples(corpus, include_ontology=False, **kwargs))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def sample() -> rdflib.Graph:
    return graph_of(sample_corpus())


def test_code_links_urls_and_invalid_links(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kg.rdf.build"):
        g = graph_of(sample_corpus())
    assert set(map(str, g.objects(P1, SCHEMA.codeRepository))) == {
        "https://github.com/example/lqca",  # metadata and text: one triple
        "https://huggingface.co/example/lqca-7b",
    }
    assert set(map(str, g.objects(P1, rdflib.RDFS.seeAlso))) == {"https://example.org/lqca"}
    assert set(map(str, g.objects(P1, SCHEMA.url))) == {"https://openreview.net/forum?id=abc123"}
    assert set(map(str, g.objects(P2, SCHEMA.codeRepository))) == {
        "https://gitlab.com/example/parrots",
        "https://github.com/example/parrots",  # written "github.com/..." in the text
    }
    assert "javascript" not in g.serialize(format="nt")
    assert [r.getMessage() for r in caplog.records] == [
        "paper 'a/b c#d' (papers.jsonl, record 2): skipped link 'javascript:alert(1)': "
        "not a valid http(s) IRI"
    ]


def test_invalid_iris_never_crash_the_build(caplog: pytest.LogCaptureFixture) -> None:
    bad = ("http://[bad", "https://x.org/a b", "not a url", "ftp://x.org/f", "https://x.org/<x>")
    paper = Paper(id="p", abstract="A.", url="https://exa mple.org", links=bad)
    with caplog.at_level(logging.WARNING, logger="kg.rdf.build"):
        g = graph_of(Corpus(papers=[paper]))
    assert list(g.objects(URIRef(B + "paper/p"), SCHEMA.url)) == []
    assert list(g.objects(URIRef(B + "paper/p"), rdflib.RDFS.seeAlso)) == []
    assert len(caplog.records) == len(bad) + 1
    assert all("paper 'p'" in r.getMessage() for r in caplog.records)


def test_extra_fields_are_never_emitted(sample: rdflib.Graph) -> None:
    text = sample.serialize(format="nt")
    assert "ada@example.org" not in text and "gender" not in text


def test_links_roles_keywords_and_paper_counts(sample: rdflib.Graph) -> None:
    llm = URIRef(B + "concept/large-language-model")
    cpp = URIRef(B + "concept/cplusplus")
    assert set(sample.subjects(kg("mentions"), llm)) == {P1, P2}
    assert sample.value(llm, kg("paperCount")).toPython() == 2
    assert set(sample.objects(P1, kg("hasKeyword"))) == {
        llm,
        URIRef(B + "concept/coreference-resolution"),
    }
    # Named in passing: kg:mentions and no role property.
    assert {p for p, o in sample.predicate_objects(P2) if o == cpp} == {kg("mentions")}
    # Merged duplicate links: the strongest role wins.
    p3 = next(sample.subjects(rdflib.DCTERMS.abstract, rdflib.Literal(
        "We fine-tune BERT with LoRA on GLUE.")))  # fmt: skip
    glue = URIRef(B + "concept/glue")
    assert {p for p, o in sample.predicate_objects(p3) if o == glue} == {
        kg("mentions"),
        kg("evaluatesOn"),
    }


def test_concept_labels_types_and_acronyms(sample: rdflib.Graph) -> None:
    lora = URIRef(B + "concept/lora")
    assert set(sample.objects(lora, RDF.type)) == {SKOS.Concept, kg("Method")}
    assert set(map(str, sample.objects(lora, kg("acronym")))) == {"LoRA"}
    # An acronym equal to the preferred label is not an alt label (SKOS keeps them disjoint).
    assert set(map(str, sample.objects(lora, SKOS.altLabel))) == {"low-rank adaptation"}
    llm = URIRef(B + "concept/large-language-model")
    assert set(map(str, sample.objects(llm, SKOS.altLabel))) == {
        "LLM",
        "LLMs",
        "large language models",
    }
    assert sample.value(llm, SKOS.inScheme) == URIRef(B + "concepts")


def test_authors_keep_their_order_in_the_author_list(sample: rdflib.Graph) -> None:
    assert str(sample.value(P2, kg("authorList"))) == "Alan Turing; Grace Hopper"
    reversed_authors = dataclasses.replace(sample_corpus().papers[1], authors=("B b", "A a"))
    g = graph_of(Corpus(papers=[reversed_authors]))
    assert str(g.value(P2, kg("authorList"))) == "B b; A a"


def test_year_is_a_four_digit_gyear() -> None:
    g = graph_of(Corpus(papers=[Paper(id="p", abstract="A.", year=999)]))
    year = g.value(URIRef(B + "paper/p"), SCHEMA.datePublished)
    assert (str(year), year.datatype) == ("0999", rdflib.XSD.gYear)


def test_no_blank_nodes_and_ontology_merged_first() -> None:
    triples = build_triples(sample_corpus())
    assert not any(isinstance(n, BlankNode) for t in triples for n in (t.subject, t.object))
    ontology = set(ontology_triples())
    assert ontology <= set(triples)
    assert set(triples[: len(ontology)]) == ontology  # kg: IRIs sort before resources
    without = build_triples(sample_corpus(), include_ontology=False)
    assert set(triples) - set(without) == ontology


def test_custom_base_and_bad_bases() -> None:
    triples = build_triples(sample_corpus(), base="https://example.org/kg/", include_ontology=False)
    assert all(t.subject.value.startswith("https://example.org/kg/") for t in triples)
    for base in ("not an iri", "https://example.org/kg"):
        with pytest.raises(InputError, match="base IRI"):
            build_triples(sample_corpus(), base=base)


def test_duplicate_paper_ids_name_both_records() -> None:
    a = Paper(id="x", abstract="A.", source="a.jsonl", record=3)
    b = Paper(id="x", abstract="B.", source="b.jsonl", record=7)
    with pytest.raises(InputError, match=r"b\.jsonl, record 7: paper id 'x' also used by a\.jsonl"):
        build_triples(Corpus(papers=[a, b]))


def test_links_must_name_known_papers_and_concepts() -> None:
    corpus = sample_corpus()
    corpus.links.append(Link("nope", "bert", Role.USES, ()))
    with pytest.raises(KGError, match="names paper 'nope'"):
        build_triples(corpus)
    corpus = sample_corpus()
    corpus.links.append(Link("2501.00001", "unknown", Role.USES, ()))
    with pytest.raises(KGError, match=r"concept 'unknown', which is not in corpus\.concepts"):
        build_triples(corpus)


def test_mentions_off_their_text_give_no_evidence(caplog: pytest.LogCaptureFixture) -> None:
    paper = Paper(id="p", abstract="We use BERT. Then more.", source="f.txt", record=4)
    good = mention(paper, Field.ABSTRACT, "BERT", "BERT", ConceptType.MODEL, Role.USES)
    sentence = good.sentence
    bad = [
        dataclasses.replace(good, span=Span(Field.ABSTRACT, 7, 99)),  # past the end
        dataclasses.replace(good, text="bert"),  # not the text at the offsets
        dataclasses.replace(good, span=Span(Field.TITLE, 7, 11)),  # no title
        dataclasses.replace(good, sentence=Span(Field.ABSTRACT, 13, 23)),  # wrong sentence
    ]
    assert sentence == Span(Field.ABSTRACT, 0, 12)
    concept = Concept("bert", "BERT", ConceptType.MODEL)
    corpus = Corpus(papers=[paper], concepts={"bert": concept},
                    links=[Link("p", "bert", Role.USES, (*bad, good))])  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="kg.rdf.build"):
        g = graph_of(corpus)
    evidence = set(g.subjects(RDF.type, kg("Evidence")))
    assert evidence == {URIRef(B + "paper/p/evidence/abstract-7-11")}
    assert len(caplog.records) == len(bad)
    assert all("paper 'p' (f.txt, record 4): no evidence for" in r.getMessage()
               for r in caplog.records)  # fmt: skip


def test_one_span_claimed_by_two_concepts_gives_two_evidence_nodes() -> None:
    paper = Paper(id="p", abstract="We use BERT.")
    m: Mention = mention(paper, Field.ABSTRACT, "BERT", "BERT", ConceptType.MODEL, Role.USES)
    concepts = {k: Concept(k, k, ConceptType.MODEL) for k in ("bert", "bert base")}
    links = [Link("p", k, Role.USES, (m,)) for k in concepts]
    g = graph_of(Corpus(papers=[paper], concepts=concepts, links=links))
    assert set(g.subjects(RDF.type, kg("Evidence"))) == {
        URIRef(B + "paper/p/evidence/abstract-7-11-bert"),
        URIRef(B + "paper/p/evidence/abstract-7-11-bert-base"),
    }


def test_colliding_concept_slugs_stay_distinct_nodes() -> None:
    concepts = {k: Concept(k, k, ConceptType.CONCEPT) for k in ("c++", "cplusplus")}
    g = graph_of(Corpus(concepts=concepts))
    nodes = set(g.subjects(SKOS.prefLabel, None))
    assert len(nodes) == 2
    assert all(str(n).startswith(B + "concept/cplusplus-") for n in nodes)


def test_unencodable_text_names_the_record() -> None:
    paper = Paper(id="p", abstract="bad \ud800 surrogate", source="f.txt", record=9)
    with pytest.raises(InputError, match=r"f\.txt, record 9: paper 'p' cannot be written"):
        build_triples(Corpus(papers=[paper]))


def test_literals_are_plain_strings_without_language() -> None:
    for t in build_triples(sample_corpus()):
        if isinstance(t.object, Literal):
            assert t.object.language is None
            assert isinstance(t.predicate, NamedNode)


def test_a_writer_that_may_release_the_links_writes_the_same_graph() -> None:
    from kg.rdf.build import iter_triples

    kept, released = sample_corpus(), sample_corpus()
    before = [str(t) for t in iter_triples(kept, include_ontology=False)]
    assert kept.links
    after = [str(t) for t in iter_triples(released, include_ontology=False, release_links=True)]
    assert after == before
    assert released.links == []  # the mentions went once the writer had packed their evidence
    assert any("/evidence/" in t for t in after)


def test_a_papers_links_need_not_be_consecutive() -> None:
    """The writer takes each paper's links straight from `corpus.links` when they come a
    paper at a time (as canonicalisation makes them), else through a map by paper: the same
    graph either way, a pair linked twice merged (strongest role, every mention), and with
    `release_links` the corpus's list is let go."""
    from kg.canon.paper_links import links_grouped
    from kg.rdf.build import iter_triples

    corpus = sample_corpus()
    by_paper = sorted(corpus.links, key=lambda link: link.paper_id)
    first = next(link for link in by_paper if link.paper_id == "2501.00001")
    by_paper.remove(first)
    twice = dataclasses.replace(first, role=Role.PROPOSES)  # the pair again, a stronger role
    grouped = [first, twice, *by_paper]
    interleaved = [first, *by_paper, twice]
    assert links_grouped(grouped) and not links_grouped(interleaved)
    graphs = []
    for links in (grouped, interleaved):
        for release in (False, True):
            copy = dataclasses.replace(corpus, links=list(links))
            graphs.append([str(t) for t in iter_triples(copy, include_ontology=False,
                                                        release_links=release)])
            assert (copy.links == []) is release
    assert all(g == graphs[0] for g in graphs)
    paper = B + "paper/" + first.paper_id  # a plain id
    assert f"<{paper}> <{kg('proposes')}> <{B}concept/" in "\n".join(graphs[0])


def test_constant_triples_wait_once_not_once_a_paper() -> None:
    """A collection's type and label are added to the buffer once, not once a paper (issue 14:
    two entries a paper on one subject, all merged at the end; so are an extractor's triples
    from relation evidence); two spellings of a collection keep both labels."""
    from kg.rdf import build as rdf_build
    from kg.rdf.canonical import TripleBuffer

    added: dict[str, int] = {}

    class Counting(TripleBuffer):
        def add(self, subject, predicate, obj, okey):  # type: ignore[no-untyped-def]
            added[subject] = added.get(subject, 0) + 1
            super().add(subject, predicate, obj, okey)

    papers = [Paper(f"p{i}", "An abstract.", collection="ICLR 2025") for i in range(20)]
    papers.append(Paper("p20", "An abstract.", collection="iclr 2025"))
    corpus = Corpus(papers=papers)
    out = Counting()
    rdf_build._GraphBuilder(corpus, rdf_build.Iris(rdf_build.DEFAULT_BASE), out).build()
    collection = B + "collection/iclr-2025"
    assert added[collection] == 4  # type and label of each spelling, not 2 a paper
    g = to_rdflib(out.triples())
    assert set(g.objects(URIRef(collection), rdflib.RDFS.label)) == {
        rdflib.Literal("ICLR 2025"), rdflib.Literal("iclr 2025")}
