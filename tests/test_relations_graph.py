"""Relations from mentions to concepts (`kg.canon.relations`) and to RDF (`kg.rdf.relations`),
on the
hand-made corpus of `tests/fixtures/relations_corpus.py`: no parser needed."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from types import ModuleType

import pyshacl
import pytest
import rdflib
from rdflib import Literal, URIRef

from kg.canon.relations import canonical_relations
from kg.errors import KGError
from kg.ingest.shelf import PaperShelf
from kg.namespaces import DEFAULT_BASE, KG_IRI
from kg.rdf import build_triples, to_rdflib
from kg.rdf.canonical import TripleBuffer
from kg.rdf.iris import Iris
from kg.rdf.ontology import ontology_path, shapes_path
from kg.rdf.relations import TERMS, add_relation_triples
from kg.types import (
    ConceptRelation,
    ConceptType,
    Corpus,
    Extraction,
    Field,
    Mention,
    Paper,
    RelationMention,
    RelationType,
    Role,
    Span,
)

FIXTURES = Path(__file__).parent / "fixtures"
B = "https://w3id.org/paperkg/resource/"
R = RelationType


def kg(name: str) -> URIRef:
    return URIRef(KG_IRI + name)


def concept(slug: str) -> URIRef:
    return URIRef(B + "concept/" + slug)


@pytest.fixture(scope="module")
def fixture(relations_fixture: ModuleType) -> ModuleType:
    return relations_fixture


@pytest.fixture(scope="module")
def corpus(fixture: ModuleType) -> Corpus:
    return fixture.relations_corpus()  # type: ignore[no-any-return]


def summary(relations: list[ConceptRelation]) -> list[tuple[str, str, str, list[str]]]:
    return [(r.subject_key, r.predicate.value, r.object_key, [p for p, _ in r.evidence])
            for r in relations]


# -- canonicalisation ----------------------------------------------------------------------


def test_relations_join_concept_keys_sorted_with_their_evidence(corpus: Corpus) -> None:
    assert summary(corpus.relations) == [
        ("chatqa 2", "basedOn", "llama 3", ["p1"]),
        ("chatqa 2", "comparedWith", "rag", ["p1", "p3"]),
        ("chatqa 2", "evaluatedOn", "infinitebench", ["p1"]),
        ("chatqa 2", "outperforms", "gpt 4o", ["p1"]),
        ("chatqa 2", "usedFor", "long context understanding", ["p1"]),
        ("diffusion model", "usedFor", "video generation", ["p2"]),
        ("gpt 4o", "comparedWith", "long question coreference adaptation", ["p3"]),
        ("llama 3", "usedFor", "long context understanding", ["p3"]),
        ("videodiff", "evaluatedOn", "ucf 101", ["p2"]),
        ("videodiff", "outperforms", "gpt 4o", ["p2"]),
        ("videodiff", "outperforms", "stable video diffusion", ["p2"]),
    ]


def test_acronyms_resolve_self_relations_drop(corpus: Corpus) -> None:
    """"GPT-4o is compared with LQCA" reaches LQCA's long form; "LQCA extends LQCA" is gone."""
    keys = {(r.subject_key, r.object_key) for r in corpus.relations}
    assert ("gpt 4o", "long question coreference adaptation") in keys
    assert not any(s == o for s, o in keys)


def test_compared_with_is_stated_once_with_its_mentions_in_key_order(corpus: Corpus) -> None:
    (relation,) = [r for r in corpus.relations if r.predicate is R.COMPARED_WITH
                   and r.object_key == "rag"]
    for _, mention in relation.evidence:  # p3 said "RAG with ChatQA 2": swapped with its keys
        assert (mention.subject.text, mention.object.text) == ("ChatQA 2", "RAG")


def test_endpoints_must_be_concepts_of_the_corpus(corpus: Corpus) -> None:
    """The fixture's p1 relates ChatQA 2 to a "model" mention no concept was made from."""
    assert not any(r.object_key == "model" for r in corpus.relations)
    fewer = canonical_relations(corpus.papers, corpus.extractions, {"chatqa 2", "llama 3"})
    assert summary(fewer) == [("chatqa 2", "basedOn", "llama 3", ["p1"])]


def test_without_concepts_the_mention_keys_decide(corpus: Corpus) -> None:
    assert canonical_relations(corpus.papers, corpus.extractions) == corpus.relations


def test_an_undefined_acronym_joins_the_corpus_expansion() -> None:
    def m(paper: Paper, surface: str, ctype: ConceptType, long: str | None = None) -> Mention:
        text = paper.text(Field.ABSTRACT)
        start = text.index(surface)
        return Mention(surface, surface, Span(Field.ABSTRACT, start, start + len(surface)),
                       Span(Field.ABSTRACT, 0, len(text)), ctype, Role.USES, "rules",
                       long_form=long)

    from kg.types import Acronym

    p1 = Paper("a", "Large language models (LLMs) are used for translation.")
    p2 = Paper("b", "LoRA adapts LLMs for summarization.")
    llm = m(p1, "LLMs", ConceptType.MODEL, "Large language models")
    x1 = Extraction("a", (llm, m(p1, "translation", ConceptType.TASK)),
                    acronyms=(Acronym("LLMs", "Large language models", Span(Field.ABSTRACT, 0,
                                                                             28)),))
    x1 = dataclasses.replace(x1, relations=(
        RelationMention(x1.mentions[0], R.USED_FOR, x1.mentions[1], llm.sentence, "relations"),))
    lora, llm2, task = (m(p2, "LoRA", ConceptType.METHOD), m(p2, "LLMs", ConceptType.MODEL),
                        m(p2, "summarization", ConceptType.TASK))
    x2 = Extraction("b", (lora, llm2, task), relations=(
        RelationMention(lora, R.USED_FOR, llm2, lora.sentence, "relations"),
        RelationMention(llm2, R.USED_FOR, task, lora.sentence, "relations"),
    ))
    found = canonical_relations([p1, p2], {"a": x1, "b": x2})
    assert summary(found) == [
        ("large language model", "usedFor", "summarization", ["b"]),
        ("large language model", "usedFor", "translation", ["a"]),
        ("lora", "usedFor", "large language model", ["b"]),
    ]


# -- RDF ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph(corpus: Corpus) -> rdflib.Graph:
    return to_rdflib(build_triples(corpus))


def test_relation_properties_join_concept_nodes(graph: rdflib.Graph) -> None:
    chatqa = concept("chatqa-2")
    assert (chatqa, kg("basedOn"), concept("llama-3")) in graph
    assert (chatqa, kg("usedFor"), concept("long-context-understanding")) in graph
    assert (chatqa, kg("evaluatedOn"), concept("infinitebench")) in graph
    assert (chatqa, kg("comparedWith"), concept("rag")) in graph
    assert (concept("rag"), kg("comparedWith"), chatqa) not in graph  # stated once
    # kg:outperforms comes with its super-property, as a role comes with kg:mentions
    assert (chatqa, kg("outperforms"), concept("gpt-4o")) in graph
    assert (chatqa, kg("comparedWith"), concept("gpt-4o")) in graph
    relation_properties = {kg(r.value) for r in R}
    assert len({t for t in graph if t[1] in relation_properties}) == 11 + 3  # + 3 implied


def test_one_evidence_node_per_relation_mention(graph: rdflib.Graph) -> None:
    e = URIRef(B + "paper/p1/relation/abstract-13-21-basedOn-25-32")
    assert set(graph.predicate_objects(e)) == {
        (rdflib.RDF.type, kg("RelationEvidence")),
        (kg("relation"), kg("basedOn")),
        (kg("subjectConcept"), concept("chatqa-2")),
        (kg("objectConcept"), concept("llama-3")),
        (kg("statedInPaper"), URIRef(B + "paper/p1")),
        (kg("statedInSentence"), URIRef(B + "paper/p1/sentence/abstract-0-76")),
        (kg("field"), Literal("abstract")),
        (kg("subjectText"), Literal("ChatQA 2")),
        (kg("subjectStart"), Literal(13)),
        (kg("subjectEnd"), Literal(21)),
        (kg("objectText"), Literal("Llama 3")),
        (kg("objectStart"), Literal(25)),
        (kg("objectEnd"), Literal(32)),
        (URIRef("http://www.w3.org/ns/prov#wasAttributedTo"),
         URIRef(B + "extractor/relations/0.1.0")),
    }
    sentence = URIRef(B + "paper/p1/sentence/abstract-0-76")
    assert (sentence, rdflib.RDF.type, kg("Sentence")) in graph
    assert len(set(graph.subjects(rdflib.RDF.type, kg("RelationEvidence")))) == 12


def test_the_graph_conforms_to_the_shapes(graph: rdflib.Graph) -> None:
    conforms, _, text = pyshacl.validate(graph, shacl_graph=rdflib.Graph().parse(shapes_path()),
                                         inference="none", advanced=True)
    assert conforms, text


EVIDENCE = URIRef(B + "paper/p1/relation/abstract-13-21-basedOn-25-32")


def _drop_evidence(g: rdflib.Graph) -> None:
    g.remove((EVIDENCE, None, None))


def _wrong_text(g: rdflib.Graph) -> None:
    g.set((EVIDENCE, kg("objectText"), Literal("Llama 4")))


def _unjoined(g: rdflib.Graph) -> None:
    g.remove((concept("chatqa-2"), kg("basedOn"), concept("llama-3")))
    g.add((concept("chatqa-2"), kg("basedOn"), concept("gpt-4o")))


@pytest.mark.parametrize(("break_it", "message"), [
    (_drop_evidence, "that no kg:RelationEvidence states"),
    (_wrong_text, "is not the substring its offsets give"),
    (_unjoined, "are not joined by its kg:relation"),
])
def test_broken_relation_graphs_are_caught(graph: rdflib.Graph, break_it, message: str) -> None:  # type: ignore[no-untyped-def]
    broken = rdflib.Graph()
    for triple in graph:
        broken.add(triple)
    break_it(broken)
    conforms, _, text = pyshacl.validate(broken, shacl_graph=rdflib.Graph().parse(shapes_path()),
                                         inference="none", advanced=True)
    assert not conforms
    assert message in str(text)


def test_the_ontology_declares_every_relation_term() -> None:
    ontology = rdflib.Graph().parse(ontology_path())
    for term in TERMS:
        iri = URIRef(term.value)
        assert (iri, rdflib.RDFS.label, None) in ontology, iri
        assert (iri, rdflib.RDFS.comment, None) in ontology, iri
    assert (kg("outperforms"), rdflib.RDFS.subPropertyOf, kg("comparedWith")) in ontology
    assert (kg("comparedWith"), rdflib.RDF.type, rdflib.OWL.SymmetricProperty) in ontology


def test_same_corpus_in_another_order_gives_the_same_triples(corpus: Corpus) -> None:
    reordered = Corpus(
        papers=list(reversed(corpus.papers)),
        extractions=dict(reversed(list(corpus.extractions.items()))),
        concepts=dict(reversed(list(corpus.concepts.items()))),
        links=list(reversed(corpus.links)),
        relations=list(reversed(corpus.relations)),
    )
    assert build_triples(reordered) == build_triples(corpus)


def test_a_relation_mention_off_its_sentence_gets_no_evidence(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    relation = corpus.relations[0]
    paper_id, mention = relation.evidence[0]
    moved = dataclasses.replace(mention, sentence=Span(Field.ABSTRACT, 30, 76))
    broken = dataclasses.replace(corpus, relations=[
        dataclasses.replace(relation, evidence=((paper_id, moved),)), *corpus.relations[1:]])
    with caplog.at_level(logging.WARNING, logger="kg.rdf.relations"):
        graph = to_rdflib(build_triples(broken, include_ontology=False))
    assert "'ChatQA 2' is not inside its sentence 30-76" in caplog.text
    assert (concept("chatqa-2"), kg("basedOn"), concept("llama-3")) in graph
    assert (EVIDENCE, None, None) not in graph


def test_a_relation_to_an_unknown_concept_is_refused(corpus: Corpus) -> None:
    relation = dataclasses.replace(corpus.relations[0], object_key="no such concept")
    with pytest.raises(KGError, match=r"'no such concept', which is not in corpus\.concepts"):
        build_triples(dataclasses.replace(corpus, relations=[relation]))


def test_relations_read_each_cited_paper_once_from_a_shelf(corpus: Corpus) -> None:
    """Issue 14: the relations' evidence reads the papers it cites, each once, from the shelf
    `kg build` keeps them on (not every paper of the corpus into one dict), and the graph is
    the one of the papers held in a list."""
    reads: list[int] = []

    class Counted(PaperShelf):
        def __getitem__(self, i):  # type: ignore[no-untyped-def,override]
            if isinstance(i, int):
                reads.append(i)
            return super().__getitem__(i)

    uncited = Paper("uncited", "A paper no relation cites.", title="Uncited")
    papers = [*corpus.papers, uncited]
    shelf = Counted(papers)
    held, shelved = TripleBuffer(), TripleBuffer()
    with_uncited = dataclasses.replace(corpus, papers=papers)
    concept_iri = Iris(DEFAULT_BASE).concepts(corpus.concepts)
    add_relation_triples(held, with_uncited, Iris(DEFAULT_BASE), concept_iri)
    add_relation_triples(shelved, dataclasses.replace(corpus, papers=shelf),
                         Iris(DEFAULT_BASE), concept_iri)
    cited = {paper_id for relation in corpus.relations for paper_id, _ in relation.evidence}
    assert len(cited) >= 2  # evidence from several papers, interleaved across relations
    assert sorted(reads) == sorted(papers.index(p) for p in papers if p.id in cited)
    assert [str(t) for t in shelved.triples()] == [str(t) for t in held.triples()]
