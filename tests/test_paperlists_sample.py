"""The corpus-level rules on 360 real paperlists records (NAACL 2024 + WACV 2025, picked to hold
defined and undefined acronyms, over-"proposed" concepts and junk candidates; see
tests/fixtures/paperlists_sample.json.gz): properties of the built graph, the named queries'
answers, and the review -> edit -> `kg build --corrections` round trip.

Extraction runs once for the module (the real pipeline); every other step reuses it.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import kg.query.named as queries
from kg.build import extract_corpus, link_corpus
from kg.canon.corrections import read_corrections
from kg.canon.hygiene import _QUANTITY, PRODUCT_WORDS
from kg.canon.origin import MAX_ORIGINS, NAMING_CUE, TITLE_NAME, introduction
from kg.cli import main
from kg.extract import Extractor
from kg.ingest import IngestReport, read_papers
from kg.normalize import norm_key
from kg.query import open_source, run_named
from kg.query.formats import compact
from kg.rdf.build import build_triples
from kg.rdf.serialize import serialize_graph
from kg.types import (
    Concept,
    ConceptType,
    Corpus,
    Extraction,
    Field,
    Link,
    Mention,
    Paper,
    Role,
    Span,
)

pytestmark = pytest.mark.model

FIXTURE = Path(__file__).parent / "fixtures" / "paperlists_sample.json.gz"
SMALL = Path(__file__).parent / "fixtures" / "build" / "small.jsonl"


@pytest.fixture(scope="module")
def extractor() -> Iterator[Extractor]:
    loaded = Extractor.load()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Extractor, "load", classmethod(lambda cls, *a, **k: loaded))
        yield loaded


@pytest.fixture(scope="module")
def extracted(extractor: Extractor) -> tuple[list[Paper], dict[str, Extraction]]:
    papers = list(read_papers([FIXTURE], report=IngestReport()))
    return papers, extract_corpus(papers, n_process=1)


@pytest.fixture(scope="module")
def corpus(extracted: tuple[list[Paper], dict[str, Extraction]]) -> Corpus:
    return link_corpus(*extracted, [])


@pytest.fixture(scope="module")
def graph(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "graph.ttl"
    path.write_bytes(serialize_graph(build_triples(corpus)))
    return path


def test_llm_and_large_language_model_are_one_node(corpus: Corpus) -> None:
    llm = corpus.concepts["large language model"]
    assert {"LLM", "LLMs", "large language models"} <= set(llm.alt_labels)
    assert "llm" not in corpus.concepts  # no node of undefined "LLM"s beside it
    # Any other node called LLM is a sense a paper defined ("large high-resource language
    # model"), kept apart.
    defined = {norm_key(a.long) for x in corpus.extractions.values() for a in x.acronyms
               if a.short.startswith("LLM")}
    others = {c.key for c in corpus.concepts.values()
              if "LLM" in {c.pref_label, *c.alt_labels}} - {llm.key}
    assert others <= defined
    rules = {d.rule for d in corpus.decisions if d.concept_key == "large language model"}
    assert {"acronym-defined"} < rules  # undefined uses joined by context or prior too


def test_the_two_crafts_are_two_nodes(corpus: Corpus) -> None:
    """ "CRAFT: Class Ranking Aware Fine-Tuning for ... OOD Detection" spells its CRAFT out in
    the title; "CRAFT: Designing Creative and Functional 3D Objects" is another thing."""
    crafts = sorted((link.paper_id, link.concept_key) for link in corpus.links
                    if any(m.label == "CRAFT" for m in link.mentions))
    assert crafts == [("06d0a7d470", "craft"), ("dd70de30bd", "class ranking aware fine tuning")]


def test_no_node_holds_two_senses_of_a_short_form(corpus: Corpus) -> None:
    """Every paper's acronym definition links it to its own long form's node."""
    links = {(link.paper_id, link.concept_key) for link in corpus.links}
    by_short: dict[str, set[str]] = {}
    for pid, extraction in corpus.extractions.items():
        for acronym in extraction.acronyms:
            by_short.setdefault(norm_key(acronym.short), set()).add(norm_key(acronym.long))
            long = norm_key(acronym.long)
            mentions = [m for m in extraction.mentions if m.long_form == acronym.long]
            if mentions and not any(key == long or key.replace(" ", "") == long.replace(
                    " ", "") for p, key in links if p == pid):
                assert any(p == pid for p, _ in links)  # the sense may only be spelled apart
    ambiguous = {s for s, longs in by_short.items() if len(longs) > 1}
    assert ambiguous  # the fixture holds short forms papers expand differently
    for concept in corpus.concepts.values():
        keys = {norm_key(label) for label in concept.alt_labels} | {concept.key}
        for short in ambiguous:
            assert len(keys & by_short[short]) <= 1 or _spellings(keys & by_short[short])


def _spellings(keys: set[str]) -> bool:
    """Keys that differ only by spaces and plurals, or by "neural" and "net" for "network", are
    one sense (kg.canon.variants)."""
    from kg.canon.variants import compact as variant
    from kg.canon.variants import network_form

    return len({variant(network_form(k)) for k in keys}) == 1


def test_no_concept_is_proposed_by_more_papers_than_can_introduce_it(corpus: Corpus) -> None:
    papers = {p.id: p for p in corpus.papers}
    linked = Counter(link.concept_key for link in corpus.links)
    for key, n in linked.items():
        if n > MAX_ORIGINS:
            for link in corpus.links:
                if link.concept_key == key and link.role is Role.PROPOSES:
                    assert introduction(papers[link.paper_id], link, corpus.concepts[key])
    cut = [d for d in corpus.decisions if d.rule == "origin"]
    assert cut, "the fixture holds concepts more than two papers link to and one 'proposes'"
    for decision in cut:  # the papers that kept the role are the ones the decision names
        kept = {v.split(" (")[0] for v in decision.variants}
        proposers = {link.paper_id for link in corpus.links
                     if link.concept_key == decision.concept_key and link.role is Role.PROPOSES}
        assert proposers == kept and decision.papers > 0


def _link_at(paper: Paper, name: str, part: Field, role: Role = Role.PROPOSES) -> Link:
    text = paper.text(part)
    start = text.index(name)
    sentence = Span(part, text.rfind(". ", 0, start) + 1, text.find(".", start) + 1 or len(text))
    mention = Mention(name, name, Span(part, start, start + len(name)), sentence,
                      ConceptType.METHOD, role, "rules")
    return Link(paper.id, norm_key(name), role, (mention,))


@pytest.mark.parametrize(("pid", "name", "part", "rule"), [
    ("dd70de30bd", "CRAFT", Field.TITLE, TITLE_NAME),  # "CRAFT: Class Ranking Aware ..."
    ("2024.findings-naacl.111", "TOLE", Field.ABSTRACT, NAMING_CUE),  # "named TOLE"
    ("8c5d189d1c", "MAVOS", Field.ABSTRACT, NAMING_CUE),  # "named MAVOS"
    ("06d0a7d470", "mesh deformation procedure", Field.ABSTRACT, None),  # "propose to use"
])
def test_the_origin_rule_on_real_papers(extracted: tuple[list[Paper], dict[str, Extraction]],
                                        pid: str, name: str, part: Field,
                                        rule: str | None) -> None:
    paper = next(p for p in extracted[0] if p.id == pid)
    link = _link_at(paper, name, part)
    concept = Concept(link.concept_key, name, ConceptType.METHOD)
    assert introduction(paper, link, concept) == rule


def test_no_quantity_or_product_is_a_node(corpus: Corpus) -> None:
    for concept in corpus.concepts.values():
        assert not _QUANTITY.match(concept.pref_label), concept
        words = re.findall(r"[a-z0-9]+", concept.pref_label.lower())
        assert not (words and all(w in PRODUCT_WORDS or w.isdigit() for w in words)), concept


def test_a_name_in_capitals_keeps_its_final_s(corpus: Corpus) -> None:
    """The dataset "MORAL EVENTS" (2024.naacl-long.252, written in capitals inside a mixed-case
    abstract) is not the plural of the "moral event" the same paper is about; no node holds a
    capitalised name ending in S beside the same name without it."""
    events = corpus.concepts["moral events"]
    assert events.pref_label == "MORAL EVENTS" and "moral event" in corpus.concepts
    for concept in corpus.concepts.values():
        labels = {concept.pref_label, *concept.alt_labels}
        for label in labels:
            if label.isupper() and label.endswith("S") and len(label) > 2:
                assert not any(o.casefold() == label[:-1].casefold() for o in labels), concept


def test_a_network_written_net_is_the_network(corpus: Corpus) -> None:
    """"graph neural net" (2024.findings-naacl.34) is the graph neural network node."""
    assert "graph neural net" not in corpus.concepts
    assert ("2024.findings-naacl.34", "graph neural network") in {
        (link.paper_id, link.concept_key) for link in corpus.links}


LISTING = {
    "proposed-methods": [{}, {"type": "Model"}, {"type": "Task"}],
    "methods-for-task": [{"task": "question answering"}, {"task": "machine translation"}],
    "evaluated-on-datasets": [{"method": "large language model"}, {"method": "CLIP"}],
    "vocabulary-matches": [{}, {"concept": "large language model"},
                           {"concept": "diffusion model"}],
}


@pytest.mark.parametrize(("name", "params"),
                         [(n, p) for n, ps in LISTING.items() for p in ps])
def test_listing_queries_repeat_no_row(graph: Path, name: str, params: dict[str, str]) -> None:
    with open_source(graph, engine="oxigraph") as source:
        result = run_named(source, name, {**queries.get(name).example, **params})
    rows = [tuple(compact(t) if t is not None else "" for t in row) for row in result.rows]
    assert len(rows) == len(set(rows))


def test_proposed_methods_lists_no_crowded_claim(graph: Path) -> None:
    with open_source(graph, engine="oxigraph") as source:
        rows = run_named(source, "proposed-methods", {"type": "Method"}).dicts()
    per_method = Counter(compact(r["method"]) for r in rows)
    assert rows and max(per_method.values()) <= MAX_ORIGINS


def test_review_edit_build_round_trip(corpus: Corpus, graph: Path,
                                      extracted: tuple[list[Paper], dict[str, Extraction]],
                                      tmp_path: Path) -> None:
    review = tmp_path / "corrections.yaml"
    result = CliRunner().invoke(main, ["review", str(graph), "-o", str(review)])
    assert result.exit_code == 0, result.output
    entries = read_corrections(review)
    assert entries and all(e.action.value == "keep" for e in entries)
    # All "keep": the graph is exactly the graph without corrections.
    unchanged = link_corpus(*extracted, entries)
    assert serialize_graph(build_triples(unchanged)) == graph.read_bytes()
    # A person's edits: reject the first junk suspect, retype the first type dispute.
    text = review.read_text(encoding="utf-8")
    junk = next(e for e in entries if "junk" in _why(text, e.concept))
    disputed = next(e for e in entries if "type" in _why(text, e.concept))
    text = _edit(text, junk.concept, "reject")
    text = _edit(text, disputed.concept, "retype\n  type: Dataset")
    review.write_text(text, encoding="utf-8")
    fixes = read_corrections(review)
    first = serialize_graph(build_triples(link_corpus(*extracted, fixes)))
    second = serialize_graph(build_triples(link_corpus(*extracted, fixes)))
    assert first == second
    edited = link_corpus(*extracted, fixes)
    labels = {c.pref_label for c in edited.concepts.values()}
    assert junk.concept not in labels
    retyped = next(c for c in edited.concepts.values() if c.pref_label == disputed.concept)
    assert retyped.ctype is ConceptType.DATASET
    assert b"kg:correctionAction \"retype\"" in first or b"correctionAction> \"retype\"" in first


def _why(text: str, concept: str) -> str:
    block = text.split(f"  concept: {_yaml(concept)}\n", 1)[1]
    return block.split("- action:", 1)[0]


def _yaml(value: str) -> str:
    import yaml

    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


def _edit(text: str, concept: str, action: str) -> str:
    old = f"- action: keep\n  concept: {_yaml(concept)}\n"
    assert old in text
    return text.replace(old, f"- action: {action}\n  concept: {_yaml(concept)}\n", 1)


def test_kg_build_corrections_on_the_command_line(extractor: Extractor, tmp_path: Path) -> None:
    out = tmp_path / "g.ttl"
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(SMALL), "-o", str(out)]).exit_code == 0
    first = out.read_text(encoding="utf-8")
    label = sorted(re.findall(r'skos:prefLabel "([^"]+)"', first))[0]
    fixes = tmp_path / "c.yaml"
    fixes.write_text(f"corrections:\n- action: reject\n  concept: {label}\n"
                     "- {action: reject, concept: nothing-there}\n", encoding="utf-8")
    args = ["build", str(SMALL), "-o", str(out), "--corrections", str(fixes)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0
    assert "no concept 'nothing-there' in this graph" in result.output
    second = out.read_text(encoding="utf-8")
    assert f'skos:prefLabel "{label}"' not in second
    assert "correction/c.yaml-1" in second and "correction/c.yaml-2" not in second
    assert runner.invoke(main, args).exit_code == 0
    assert out.read_text(encoding="utf-8") == second  # byte-identical on a rerun
    bad = tmp_path / "bad.yaml"
    bad.write_text("corrections:\n- {action: merge, concept: x}\n", encoding="utf-8")
    result = runner.invoke(main, ["build", str(SMALL), "-o", str(out), "--corrections",
                                  str(bad)])
    assert result.exit_code == 2 and "entry 1: action merge needs 'into'" in result.output


def test_the_fixture_is_real_paperlists_records() -> None:
    records = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    assert 300 <= len(records) <= 400
    assert {r["venue"] for r in records} == {"NAACL", "WACV"}


_USED_AND_EVALUATED = """
PREFIX kg: <https://w3id.org/paperkg/ontology#>
ASK { ?paper kg:proposes|kg:uses ?m ; kg:evaluatesOn ?dataset . ?dataset a kg:Dataset }"""
_ON_TASK_AND_PROPOSED = """
PREFIX kg: <https://w3id.org/paperkg/ontology#>
ASK { ?paper kg:addresses|kg:evaluatesOn ?t ; kg:proposes ?method }"""


def test_relation_lists_fall_back_on_what_the_papers_do(graph: Path) -> None:
    """A concept no sentence ties to a dataset (or a task no sentence names a method for) still
    gets the datasets its papers are evaluated on (the methods papers on it propose), each
    row backed by a paper that does so."""
    with open_source(graph, engine="oxigraph") as source:
        datasets = run_named(source, "evaluated-on-datasets",
                             {"method": "diffusion model"}).dicts()
        methods = run_named(source, "methods-for-task", {"task": "question answering"}).dicts()
        model = source.select('SELECT ?m WHERE { ?m <http://www.w3.org/2004/02/skos/core#'
                              'prefLabel> "diffusion model" }')[0]["m"]
        task = source.select('SELECT ?t WHERE { ?t <http://www.w3.org/2004/02/skos/core#'
                             'prefLabel> "question answering" }')[0]["t"]
        by_papers = [r for r in datasets if r["basis"].value == "papers using it"]
        proposed = [r for r in methods if r["basis"].value == "papers on the task"]
        assert by_papers and proposed
        for row in by_papers:
            assert source.query(_USED_AND_EVALUATED, {"m": model,
                                                      "dataset": row["dataset"]}).boolean
        for row in proposed:
            assert source.query(_ON_TASK_AND_PROPOSED, {"t": task,
                                                        "method": row["method"]}).boolean
