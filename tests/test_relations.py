"""Relation patterns on hand-written sentences with the real parser
(`kg.extract.relation_mentions`),
the SciERC scorer on a hand-made document, and the end-to-end build of the shared sample.

The English pipeline is loaded once per module; marked `model`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from spacy.language import Language

from kg.extract.nlp import load_nlp
from kg.extract.relation_mentions import find_relations
from kg.extract.textfix import repair
from kg.types import ConceptType, Field, Mention, RelationType, Role, Span

pytestmark = pytest.mark.model

M, ME, T, D, MT = (ConceptType.MODEL, ConceptType.METHOD, ConceptType.TASK,
                   ConceptType.DATASET, ConceptType.METRIC)
A = Field.ABSTRACT


@pytest.fixture(scope="module")
def nlp() -> Language:
    return load_nlp()


def relations(
    nlp: Language, text: str, terms: dict[str, ConceptType], *, typed: bool = True
) -> set[tuple[str, str, str]]:
    """(subject, relation, object) labels found between the given mentions of `text`."""
    fixed = repair(text)
    doc = nlp(fixed.text)
    mentions = []
    for surface, ctype in terms.items():
        found = re.search(rf"(?<!\w){re.escape(surface)}(?!\w)", text)
        assert found is not None, surface
        span = Span(A, found.start(), found.end())
        mentions.append(Mention(surface, surface, span, Span(A, 0, len(text)), ctype,
                                Role.USES, "test"))
    found_relations = find_relations([(A, fixed, doc)], mentions, typed=typed)
    return {(r.subject.label, r.predicate.value, r.object.label) for r in found_relations}


CASES = [
    # usedFor
    ("We use CLIP for image retrieval.", {"CLIP": M, "image retrieval": T},
     {("CLIP", "usedFor", "image retrieval")}),
    ("GPT-4 is used for data annotation.", {"GPT-4": M, "data annotation": T},
     {("GPT-4", "usedFor", "data annotation")}),
    ("We apply LoRA to instruction tuning.", {"LoRA": ME, "instruction tuning": ME},
     {("LoRA", "usedFor", "instruction tuning")}),
    ("Graph neural networks for drug discovery remain popular.",
     {"Graph neural networks": M, "drug discovery": T},
     {("Graph neural networks", "usedFor", "drug discovery")}),
    ("The retriever uses BM25 to rank passages.", {"retriever": ME, "BM25": ME},
     {("BM25", "usedFor", "retriever")}),
    # basedOn
    ("We present ChatQA 2, an Llama 3.0-based model for long-context understanding.",
     {"ChatQA 2": M, "Llama 3.0": M, "long-context understanding": T},
     {("ChatQA 2", "basedOn", "Llama 3.0"), ("ChatQA 2", "usedFor", "long-context understanding")}),
    ("MedLM is built upon Mistral 7B.", {"MedLM": M, "Mistral 7B": M},
     {("MedLM", "basedOn", "Mistral 7B")}),
    ("QLoRA is a variant of LoRA.", {"QLoRA": ME, "LoRA": ME}, {("QLoRA", "basedOn", "LoRA")}),
    ("Vicuna, fine-tuned from LLaMA, achieves 90% of ChatGPT quality.",
     {"Vicuna": M, "LLaMA": M, "ChatGPT": M}, {("Vicuna", "basedOn", "LLaMA")}),
    # outperforms / comparedWith
    ("DSI is faster than SI.", {"DSI": ME, "SI": ME}, {("DSI", "outperforms", "SI")}),
    ("BERT is slower than DistilBERT.", {"BERT": M, "DistilBERT": M},
     {("DistilBERT", "outperforms", "BERT")}),
    ("We propose FlashAttention, an IO-aware attention algorithm that is faster than standard "
     "attention.", {"FlashAttention": ME, "standard attention": ME},
     {("FlashAttention", "outperforms", "standard attention")}),
    ("X-Net yields an improvement of 3% over U-Net on BraTS.",
     {"X-Net": M, "U-Net": M, "BraTS": D},
     {("X-Net", "outperforms", "U-Net"), ("X-Net", "evaluatedOn", "BraTS")}),
    ("Compared with PPO, DPO is simpler and more stable.", {"PPO": ME, "DPO": ME},
     {("DPO", "comparedWith", "PPO")}),
    ("Mamba achieves performance comparable to Transformers.", {"Mamba": M, "Transformers": M},
     {("Mamba", "comparedWith", "Transformers")}),
    ("We compare DPO and PPO on summarization.", {"DPO": ME, "PPO": ME, "summarization": T},
     {("DPO", "comparedWith", "PPO")}),
    # evaluatedOn (and an "including" list of rivals)
    ("ResNet outperforms VGG on ImageNet.", {"ResNet": M, "VGG": M, "ImageNet": D},
     {("ResNet", "outperforms", "VGG"), ("ResNet", "evaluatedOn", "ImageNet")}),
    ("We evaluate GPT-4o on MMLU and GSM8K.", {"GPT-4o": M, "MMLU": D, "GSM8K": D},
     {("GPT-4o", "evaluatedOn", "MMLU"), ("GPT-4o", "evaluatedOn", "GSM8K")}),
    ("Experiments on ImageNet show that ViT outperforms ResNet.",
     {"ImageNet": D, "ViT": M, "ResNet": M},
     {("ViT", "evaluatedOn", "ImageNet"), ("ViT", "outperforms", "ResNet")}),
    ("SAM achieves state-of-the-art results on COCO.", {"SAM": M, "COCO": D},
     {("SAM", "evaluatedOn", "COCO")}),
    ("The Llama3-ChatQA-2-70B model outperforms most existing models, including GPT-4-Turbo "
     "and Qwen2-72B-Instruct.", {"Llama3-ChatQA-2-70B": M, "GPT-4-Turbo": M,
                                 "Qwen2-72B-Instruct": M},
     {("Llama3-ChatQA-2-70B", "outperforms", "GPT-4-Turbo"),
      ("Llama3-ChatQA-2-70B", "outperforms", "Qwen2-72B-Instruct")}),
    # nothing stated
    ("Llama 2 and Mistral are strong models.", {"Llama 2": M, "Mistral": M}, set()),
    ("Our method surpasses strong baselines such as BM25 and DPR.", {"BM25": ME, "DPR": ME},
     set()),
]


@pytest.mark.parametrize(("text", "terms", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_patterns_find_the_stated_relations(
    nlp: Language, text: str, terms: dict[str, ConceptType], expected: set[tuple[str, str, str]]
) -> None:
    assert relations(nlp, text, terms) == expected


def test_relations_stay_inside_one_sentence(nlp: Language) -> None:
    text = "We use BERT. Question answering remains hard."
    assert relations(nlp, text, {"BERT": M, "Question answering": T}, typed=False) == set()


def test_types_decide_what_the_graph_accepts(nlp: Language) -> None:
    text = "We use BLEU for machine translation."
    terms = {"BLEU": MT, "machine translation": T}
    assert relations(nlp, text, terms) == set()  # a metric is not used for a task
    assert relations(nlp, text, terms, typed=False) == {
        ("BLEU", "usedFor", "machine translation")
    }


def test_mentions_are_placed_through_the_repair_map(nlp: Language) -> None:
    """Markdown emphasis and a line-break hyphen shift the repaired text; offsets still fit."""
    text = "We propose *DSI*, a novel method for long-context under- standing."
    found = relations(nlp, text, {"DSI": ME, "long-context under- standing": T})
    assert found == {("DSI", "usedFor", "long-context under- standing")}


def test_relation_mentions_carry_their_sentence_in_original_offsets(nlp: Language) -> None:
    text = "Background first. ResNet outperforms VGG- 16 on ImageNet."
    fixed = repair(text)
    doc = nlp(fixed.text)
    terms = [("ResNet", M), ("VGG- 16", M), ("ImageNet", D)]
    mentions = []
    for surface, ctype in terms:
        start = text.index(surface)
        mentions.append(Mention(surface, surface, Span(A, start, start + len(surface)),
                                Span(A, 18, len(text)), ctype, Role.USES, "rules"))
    found = find_relations([(A, fixed, doc)], mentions)
    assert [(r.subject.text, r.predicate, r.object.text) for r in found] == [
        ("ResNet", RelationType.EVALUATED_ON, "ImageNet"),
        ("ResNet", RelationType.OUTPERFORMS, "VGG- 16"),
    ]
    for r in found:
        assert r.sentence == Span(A, 18, len(text))
        assert r.extractor == "relations"


def test_scierc_scores_on_a_hand_made_document(tmp_path: Path) -> None:
    from kg.eval.relations import evaluate_scierc

    record = {
        "doc_key": "d1",
        "sentences": [["We", "use", "CLIP", "for", "image", "retrieval", "."],
                      ["ResNet", "outperforms", "VGG", "on", "ImageNet", "."]],
        "ner": [[[2, 2, "Method"], [4, 5, "Task"]],
                [[7, 7, "Method"], [9, 9, "Method"], [11, 11, "Material"]]],
        "relations": [[[2, 2, 4, 5, "USED-FOR"]],
                      [[9, 9, 7, 7, "COMPARE"], [11, 11, 7, 7, "EVALUATE-FOR"],
                       [7, 7, 11, 11, "USED-FOR"]]],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    report = evaluate_scierc(path)
    used, compare, either = (report.scores[k] for k in ("USED-FOR", "COMPARE", "COMPARE-either"))
    assert (used.tp, used.predicted, used.gold) == (1, 1, 2)
    # ResNet outperforms VGG: gold has the other direction, so only the undirected score counts.
    assert (compare.tp, compare.predicted, compare.gold) == (0, 1, 1)
    assert (either.tp, either.predicted, either.gold) == (1, 1, 1)
    evaluate = report.scores["EVALUATE-FOR"]
    assert (evaluate.tp, evaluate.predicted, evaluate.gold) == (1, 1, 1)
    assert report.documents == 1


def test_shared_sample_end_to_end(shared_data: Path, tmp_path: Path) -> None:
    """The ICLR sample through extraction, canonicalisation, RDF, SHACL and the named query:
    ChatQA 2 is "an Llama 3.0-based model"."""
    import pyshacl
    import rdflib

    from kg.build import build_corpus
    from kg.ingest import read_papers
    from kg.query import open_source, run_named
    from kg.rdf import GraphFormat, build_triples, serialize_graph, to_rdflib
    from kg.rdf.ontology import shapes_path

    corpus = build_corpus(read_papers([shared_data / "iclr2025_abstracts.txt"]), n_process=1)
    found = {(r.subject_key, r.predicate.value, r.object_key) for r in corpus.relations}
    assert ("chatqa 2", "basedOn", "llama 3.0") in found
    for relation in corpus.relations:
        assert relation.subject_key in corpus.concepts and relation.object_key in corpus.concepts
        for paper_id, mention in relation.evidence:
            assert mention.subject.span.field is mention.sentence.field
            paper = next(p for p in corpus.papers if p.id == paper_id)
            sentence = paper.text(mention.sentence.field)[
                mention.sentence.start : mention.sentence.end]
            assert mention.subject.text in sentence and mention.object.text in sentence

    triples = build_triples(corpus)
    graph = to_rdflib(triples)
    shapes = rdflib.Graph().parse(shapes_path())
    own = rdflib.Graph()  # the relation shapes only: the rest of the graph is tested elsewhere
    kgsh = rdflib.Namespace("https://w3id.org/paperkg/shapes#")
    for node in (kgsh.RelationShape, kgsh.RelationEvidenceShape, kgsh.RelationChecks,
                 rdflib.URIRef("https://w3id.org/paperkg/shapes")):
        for triple in shapes.cbd(node):
            own.add(triple)
    conforms, _, text = pyshacl.validate(graph, shacl_graph=own, inference="none",
                                         advanced=True)
    assert conforms, text

    ttl = tmp_path / "graph.ttl"
    ttl.write_bytes(serialize_graph(triples, GraphFormat.TURTLE))
    with open_source(ttl, engine="oxigraph") as source:
        rows = run_named(source, "models-based-on", {"concept": "Llama 3.0"}).dicts()
    assert any(r["derivedLabel"].value == "ChatQA 2" for r in rows), rows
