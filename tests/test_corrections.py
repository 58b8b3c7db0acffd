"""kg.canon.corrections and kg.query.review on hand-made extractions (no spaCy): the YAML file
is checked, every action applies deterministically, and the graph records what was done."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.build import link_corpus
from kg.canon.corrections import read_corrections
from kg.errors import InputError
from kg.query import open_source
from kg.query.review import AMBIGUOUS, JUNK, REJECTED, TYPES, review_candidates
from kg.rdf.build import build_triples
from kg.rdf.serialize import GraphFormat, serialize_graph
from kg.types import (
    Acronym,
    ConceptType,
    Corpus,
    CorrectionAction,
    Extraction,
    Field,
    Mention,
    Paper,
    Rejection,
    Role,
    Span,
)

KG = "https://w3id.org/paperkg/ontology#"
R = "https://w3id.org/paperkg/resource/"


def m(label: str, start: int, ctype: ConceptType = ConceptType.METHOD,
      long_form: str | None = None) -> Mention:
    return Mention(label, label, Span(Field.ABSTRACT, start, start + len(label)),
                   Span(Field.ABSTRACT, 0, 200), ctype, Role.USES, "rules", long_form=long_form)


TEXT = ("We use LLM and ZZ-Net and the large language model. " * 2).ljust(200, ".")


def corpus_with(corrections_text: str | None, tmp_path: Path) -> Corpus:
    papers = [Paper(f"p{i}", TEXT, title=f"Paper {i}") for i in range(3)]
    mentions = (m("LLM", 7), m("ZZ-Net", 15), m("large language model", 30))
    extractions = {
        "p0": Extraction("p0", mentions=(*mentions[1:], m("LLM", 7, long_form="large language "
                                                            "model")),
                         acronyms=(Acronym("LLM", "large language model",
                                           Span(Field.ABSTRACT, 7, 10)),)),
        "p1": Extraction("p1", mentions=mentions),
        "p2": Extraction("p2", mentions=(m("ZZ-Net", 15, ConceptType.MODEL),
                                         m("large language model", 30))),
    }
    return linked(papers, extractions, corrections_text, tmp_path)


def linked(papers: list[Paper], extractions: dict[str, Extraction],
           corrections_text: str | None, tmp_path: Path) -> Corpus:
    """`link_corpus` of the papers, with the corrections file `corrections_text` if given."""
    fixes = []
    if corrections_text is not None:
        path = tmp_path / "corrections.yaml"
        path.write_text(corrections_text, encoding="utf-8")
        fixes = read_corrections(path)
    return link_corpus(papers, extractions, fixes)


def turtle(corpus: Corpus) -> str:
    return serialize_graph(build_triples(corpus, include_ontology=False)).decode()


EVERY_ACTION = """
corrections:
- action: keep
  concept: large language model
  seen: {why: anything, papers: 3}
- action: retype
  concept: ZZ-Net
  type: model
- action: rename
  concept: zz net
  label: ZZNet
  note: the authors' spelling
- action: split
  concept: large language model
  papers: [p2]
  label: LLM (p2's sense)
- action: reject
  concept: nothing here
"""


def test_every_action_applies_and_is_recorded(tmp_path: Path) -> None:
    corpus = corpus_with(EVERY_ACTION, tmp_path)
    zz = corpus.concepts["zz net"]
    assert (zz.ctype, zz.pref_label) == (ConceptType.MODEL, "ZZNet")
    assert "ZZ-Net" in zz.alt_labels
    by_paper = {(link.paper_id, link.concept_key) for link in corpus.links}
    assert ("p2", "llm p2's sense") in by_paper and ("p2", "large language model") not in by_paper
    assert corpus.concepts["llm p2's sense"].pref_label == "LLM (p2's sense)"
    assert corpus.warnings == [
        "corrections.yaml, entry 5: no concept 'nothing here' in this graph; the reject was "
        "skipped"]
    graph = turtle(corpus)
    store = ox.Store()
    store.load(graph.encode(), "text/turtle")
    rows = list(store.query(
        f"SELECT ?action ?concept WHERE {{ ?x a <{KG}Correction> ; <{KG}correctionAction> ?action ."
        f" ?d <http://www.w3.org/ns/prov#wasGeneratedBy> ?x ; <{KG}decidedConcept> ?concept }}"
        " ORDER BY ?action"))
    assert [(r["action"].value, r["concept"].value) for r in rows] == [
        ("rename", R + "concept/zz-net"), ("retype", R + "concept/zz-net"),
        ("split", R + "concept/llm-p2-s-sense")]


def test_merge_and_reject(tmp_path: Path) -> None:
    corpus = corpus_with("""
corrections:
- {action: merge, concept: ZZ-Net, into: large language model}
- {action: reject, concept: large language model, note: not a concept}
""", tmp_path)
    assert corpus.concepts == {}
    assert corpus.links == []
    graph = turtle(corpus)
    assert '"not a concept"' in graph and "correction/corrections.yaml-2" in graph


def test_the_same_file_gives_the_same_bytes(tmp_path: Path) -> None:
    text = "corrections:\n- {action: merge, concept: ZZ-Net, into: LLM}\n"
    first, second = turtle(corpus_with(text, tmp_path)), turtle(corpus_with(text, tmp_path))
    assert first == second
    assert R + "concept/zz-net" not in first and R + "concept/large-language-model" in first


def test_a_rerun_in_a_fresh_process_gives_the_same_bytes(tmp_path: Path) -> None:
    """Corrections applied in two processes with different hash seeds (a rerun of `kg build
    --corrections`): byte-identical graphs, the corrections in them."""
    text = EVERY_ACTION + "- {action: merge, concept: ZZNet, into: LLM}\n"
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "import test_corrections as t; "
            "sys.stdout.write(t.turtle(t.corpus_with(sys.argv[2], Path(sys.argv[3]))))")
    outputs = set()
    for seed in ("1", "2"):
        folder = tmp_path / seed
        folder.mkdir()
        done = subprocess.run(
            [sys.executable, "-c", code, str(Path(__file__).parent), text, str(folder)],
            env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    graph = outputs.pop().decode()
    assert "correction/corrections.yaml-6" in graph and "concept/zz-net>" not in graph


def test_a_later_entry_names_a_concept_by_the_label_an_earlier_one_gave(tmp_path: Path) -> None:
    """The file applies in order: "rename X to Y" then "merge Y into Z" merges X; the target
    keeps its own name and type."""
    corpus = corpus_with(EVERY_ACTION + "- {action: merge, concept: ZZNet, into: LLM}\n",
                         tmp_path)
    assert corpus.warnings == [
        "corrections.yaml, entry 5: no concept 'nothing here' in this graph; the reject was "
        "skipped"]
    assert "zz net" not in corpus.concepts
    llm = corpus.concepts["large language model"]
    assert (llm.pref_label, llm.ctype) == ("large language model", ConceptType.METHOD)
    assert "ZZ-Net" in llm.alt_labels


@pytest.mark.parametrize(("text", "message"), [
    ("corrections:\n- {action: squash, concept: x}\n", "entry 1: action 'squash' is not one of"),
    ("corrections:\n- {action: merge, concept: x}\n", "entry 1: action merge needs 'into'"),
    ("corrections:\n- {action: keep}\n", "'concept' is missing"),
    ("corrections:\n- {action: retype, concept: x, type: Thing}\n", "type 'Thing' is not one"),
    ("corrections:\n- {action: keep, concept: x, colour: red}\n", "unknown field(s) colour"),
    ("corrections: {action: keep}\n", "'corrections' must be a list"),
    ("corrections:\n- [unclosed\n", "not valid YAML"),
])
def test_bad_files_are_refused_with_file_entry_and_fix(tmp_path: Path, text: str,
                                                       message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_corrections(path)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_an_empty_file_corrects_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert read_corrections(path) == []


def test_review_lists_candidates_as_keep_entries_that_read_back(tmp_path: Path) -> None:
    corpus = corpus_with(None, tmp_path)
    graph = tmp_path / "g.ttl"
    graph.write_bytes(serialize_graph(build_triples(corpus), GraphFormat.TURTLE))
    from kg.query.review import write_review

    with open_source(graph, engine="oxigraph") as source:
        candidates = review_candidates(source)
        write_review(source, tmp_path / "review.yaml")
    whys = {c.label: c.why for c in candidates}
    assert TYPES in whys["ZZ-Net"]  # two papers say Method, one Model
    assert JUNK not in whys.get("large language model", [])
    entries = read_corrections(tmp_path / "review.yaml")
    assert {e.action for e in entries} == {CorrectionAction.KEEP}
    assert [e.concept for e in entries] == [c.label for c in candidates]
    assert AMBIGUOUS not in whys["ZZ-Net"]


def test_review_command_has_help_and_names_a_missing_graph(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kg.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["review", "--help"])
    assert result.exit_code == 0 and "corrections file" in result.output
    for param in main.commands["review"].params:
        if param.name != "graph":
            assert getattr(param, "help", None), param.name
    result = runner.invoke(main, ["review", str(tmp_path / "none.ttl")])
    assert result.exit_code == 2 and "none.ttl" in result.output


def test_decisions_and_corrections_conform_to_the_shapes(tmp_path: Path) -> None:
    import pyshacl
    import rdflib

    from kg.rdf.ontology import shapes_path

    corpus = corpus_with("""
corrections:
- {action: retype, concept: ZZ-Net, type: Model}
- {action: split, concept: large language model, papers: [p2], label: Other LLM}
- {action: merge, concept: Other LLM, into: ZZ-Net, note: same}
""", tmp_path)
    graph = rdflib.Graph().parse(data=turtle(corpus), format="turtle")
    graph += rdflib.Graph().parse(data=serialize_graph(build_triples(corpus)).decode(),
                                  format="turtle")
    conforms, _, report = pyshacl.validate(
        graph, shacl_graph=rdflib.Graph().parse(shapes_path()), inference="none", advanced=True)
    assert conforms, report
    kinds = {str(o) for o in graph.objects(None, rdflib.URIRef(KG + "rule"))}
    # The split's node was merged away afterwards: its decision went with it.
    assert {"correction:retype", "correction:merge", "acronym-defined"} <= kinds
    assert "correction:split" not in kinds


def corpus_with_junk(corrections_text: str | None, tmp_path: Path) -> Corpus:
    """Two papers that name a speed-up ("10X"), which the hygiene filter drops."""
    text = "LLM is 10X faster with ZZ-Net. ".ljust(200, ".")
    papers = [Paper(f"p{i}", text, title=f"Paper {i}") for i in range(2)]
    extractions = {p.id: Extraction(p.id, mentions=(m("LLM", 0), m("10X", 7), m("ZZ-Net", 23)))
                   for p in papers}
    return linked(papers, extractions, corrections_text, tmp_path)


def test_what_hygiene_drops_is_recorded_in_the_graph(tmp_path: Path) -> None:
    corpus = corpus_with_junk(None, tmp_path)
    assert "10x" not in corpus.concepts
    assert corpus.rejections == [Rejection("10x", "quantity", ("10X",), ("p0", "p1"))]
    store = ox.Store()
    store.load(turtle(corpus).encode(), "text/turtle")
    rows = list(store.query(
        f"SELECT ?r ?label ?rule ?paper WHERE {{ ?r a <{KG}Rejection> ; "
        f"<http://www.w3.org/2000/01/rdf-schema#label> ?label ; <{KG}hygieneRule> ?rule ; "
        f"<{KG}rejectedIn> ?paper }} ORDER BY ?paper"))
    assert [(r["r"].value, r["label"].value, r["rule"].value, r["paper"].value)
            for r in rows] == [(R + "rejected/10x", "10X", "quantity", R + "paper/p0"),
                               (R + "rejected/10x", "10X", "quantity", R + "paper/p1")]


def test_review_lists_dropped_nodes_and_accept_keeps_one(tmp_path: Path) -> None:
    from kg.query import run_named
    from kg.query.review import write_review

    graph = tmp_path / "g.ttl"
    graph.write_bytes(serialize_graph(build_triples(corpus_with_junk(None, tmp_path)),
                                      GraphFormat.TURTLE))
    with open_source(graph, engine="oxigraph") as source:
        candidates = review_candidates(source)
        write_review(source, tmp_path / "review.yaml")
        rows = run_named(source, "rejected-concepts", {"rule": "quantity"}).dicts()
    assert [(r["label"].value, int(r["papers"].value)) for r in rows] == [("10X", 2)]
    (dropped,) = [c for c in candidates if REJECTED in c.why]
    assert (dropped.label, dropped.papers) == ("10X", 2)
    assert "quantity" in dropped.details[0]
    text = (tmp_path / "review.yaml").read_text(encoding="utf-8")
    assert "accept" in text.split("corrections:")[0]  # the header says how to overrule
    edited = text.replace("- action: keep\n  concept: 10X", "- action: accept\n  concept: 10X")
    assert edited != text
    corpus = corpus_with_junk(edited, tmp_path)
    assert corpus.concepts["10x"].pref_label == "10X"
    assert {link.paper_id for link in corpus.links if link.concept_key == "10x"} == {"p0", "p1"}
    assert corpus.rejections == [] and corpus.warnings == []
    (decision,) = [d for d in corpus.decisions if d.rule == "correction:accept"]
    assert (decision.concept_key, decision.papers) == ("10x", 2)
    assert "quantity rule overruled" in decision.note
    again = corpus_with_junk(edited, tmp_path)
    assert turtle(again) == turtle(corpus)


def test_accepting_a_node_that_was_not_dropped_is_skipped_with_a_warning(tmp_path: Path) -> None:
    corpus = corpus_with_junk("corrections:\n- {action: accept, concept: ZZ-Net}\n", tmp_path)
    assert corpus.warnings == [
        "corrections.yaml, entry 1: the hygiene filter dropped no concept 'ZZ-Net' in this "
        "graph; the accept was skipped"]
    assert [r.concept_key for r in corpus.rejections] == ["10x"]
    assert not corpus.corrections


def test_rejections_and_accepts_conform_to_the_shapes(tmp_path: Path) -> None:
    import pyshacl
    import rdflib

    from kg.rdf.ontology import shapes_path

    shapes = rdflib.Graph().parse(shapes_path())
    for text in (None, "corrections:\n- {action: accept, concept: 10X, note: a model name}\n"):
        corpus = corpus_with_junk(text, tmp_path)
        graph = rdflib.Graph().parse(data=serialize_graph(build_triples(corpus)).decode(),
                                     format="turtle")
        conforms, _, report = pyshacl.validate(graph, shacl_graph=shapes, inference="none",
                                               advanced=True)
        assert conforms, report
        kinds = {str(o) for o in graph.objects(None, rdflib.RDF.type)}
        assert (KG + "Rejection" in kinds) == (text is None)


def test_review_keeps_the_most_linked_of_long_sections(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A 35k-paper graph has ~17,000 candidates; the type and short-form sections keep their
    most linked concepts only."""
    import kg.query.review as review

    corpus = corpus_with(None, tmp_path)
    graph = tmp_path / "g.ttl"
    graph.write_bytes(serialize_graph(build_triples(corpus), GraphFormat.TURTLE))
    with open_source(graph, engine="oxigraph") as source:
        assert TYPES in {w for c in review_candidates(source) for w in c.why}
        monkeypatch.setattr(review, "TYPES_LIMIT", 0)
        assert TYPES not in {w for c in review_candidates(source) for w in c.why}
