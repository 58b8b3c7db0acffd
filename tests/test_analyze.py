"""`kg analyze` on hand-made graphs with known answers (tests/fixtures/analyze_graph.py): two
planted communities, a concept that doubles every year, the pair of papers with the highest
overlap; determinism, replacing a previous analysis, the store, the contract shapes, the CLI."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from kg.analyze import AnalyzeConfig, analyze, analyze_file, analyze_store, analyze_triples
from kg.analyze.filescan import read_file
from kg.analyze.incidence import IncidenceReader
from kg.analyze.rdf import PAGE_RANK
from kg.analyze.results import Analysis
from kg.analyze.trends import bursts, concept_trend, growth
from kg.cli import main
from kg.rdf import build_triples, write_graph
from kg.rdf.io import parse_file

FIXTURES = Path(__file__).parent / "fixtures"
GRAPH = FIXTURES / "analyze_graph.ttl"
B = "https://w3id.org/paperkg/resource/"


def _fixture_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("analyze_graph", FIXTURES / "analyze_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIXTURE = _fixture_module()


@pytest.fixture(scope="module")
def plain_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture corpus as a graph without analytics."""
    path = tmp_path_factory.mktemp("analyze") / "graph.ttl"
    write_graph(build_triples(FIXTURE.corpus()), path)
    return path


@pytest.fixture(scope="module")
def analysis(plain_graph: Path) -> Analysis:
    scan = read_file(plain_graph)
    assert not scan.analysed
    return analyze(scan.incidence)


def _concept(analysis: Analysis, label: str) -> int:
    return analysis.incidence.labels.index(label)


def _community_of(analysis: Analysis, label: str) -> int | None:
    number = _concept(analysis, label)
    found = [c.number for c in analysis.communities if number in c.members]
    return found[0] if found else None


def test_the_two_planted_communities_are_found(analysis: Analysis) -> None:
    segmentation = {_community_of(analysis, label) for label in FIXTURE.SEGMENTATION}
    translation = {_community_of(analysis, label) for label in FIXTURE.TRANSLATION}
    assert len(segmentation) == 1 and len(translation) == 1
    assert segmentation != translation and None not in segmentation | translation
    # The community of "U-Net" is labelled with its most central concepts.
    number = segmentation.pop()
    label = analysis.community_labels[number - 1]
    assert len(label.split(" · ")) == 3
    assert set(label.split(" · ")) <= set(FIXTURE.SEGMENTATION) | {FIXTURE.RISING}


def test_a_concept_that_doubles_every_year_is_the_most_emerging(analysis: Analysis) -> None:
    rising = analysis.trends[_concept(analysis, FIXTURE.RISING)]
    assert rising is not None
    assert rising.first_year == 2021 and rising.last_year == 2024
    assert rising.growth == pytest.approx(1.0)  # the share doubles every year
    assert rising.burst is not None and rising.burst.end == 2024
    assert rising.emerging > 0
    others = [t for j, t in enumerate(analysis.trends)
              if t is not None and j != _concept(analysis, FIXTURE.RISING)]
    assert all(t.emerging < rising.emerging for t in others)
    # Constant shares: no growth, no burst.
    unet = analysis.trends[_concept(analysis, "image segmentation")]
    assert unet is not None and unet.growth == pytest.approx(0.0) and unet.burst is None


def test_the_pair_with_the_highest_overlap_is_most_similar(analysis: Analysis) -> None:
    papers = analysis.incidence.papers
    best = max(analysis.similar, key=lambda s: s.score)
    assert {papers[best.paper], papers[best.other]} == {B + "paper/t23-9", B + "paper/t24-8"}
    assert best.shared == 7
    tops = {papers[s.paper]: papers[s.other] for s in analysis.similar if s.rank == 1}
    assert tops[B + "paper/t23-9"] == B + "paper/t24-8"
    assert tops[B + "paper/t24-8"] == B + "paper/t23-9"
    assert all(s.paper != s.other for s in analysis.similar)
    assert max(s.rank for s in analysis.similar) == AnalyzeConfig().similar_papers


def test_centrality_ranks_the_bridged_and_rising_concepts(analysis: Analysis) -> None:
    rank = analysis.concept_rank
    assert rank[_concept(analysis, "U-Net")] > rank[_concept(analysis, "Cityscapes")]
    assert rank[_concept(analysis, "Cityscapes")] > rank[_concept(analysis, "sparse mixture")]
    assert sum(rank) + sum(analysis.paper_rank) == pytest.approx(1.0)
    strength = analysis.link_strength
    assert strength[_concept(analysis, "U-Net")] > strength[_concept(analysis, "Cityscapes")]


def test_related_concepts_need_two_shared_papers(analysis: Analysis) -> None:
    labels = analysis.incidence.labels
    related = {(labels[r.concept], labels[r.other]) for r in analysis.related}
    assert ("sparse mixture", "router collapse") in related
    # U-Net shares one paper with each translation concept: chance, not association.
    assert not any(a == "U-Net" and b in FIXTURE.TRANSLATION for a, b in related)


def test_bursts_and_growth_on_known_series() -> None:
    assert bursts([5, 5, 5, 5], [10, 10, 10, 10]) == []
    found = bursts([0, 0, 1, 5, 9], [10, 10, 10, 10, 10])
    assert [(b.start, b.end) for b in found] == [(3, 4)]
    assert growth([1, 2, 4, 8], [100, 100, 100, 100]) == pytest.approx(1.0)
    assert growth([4, 4, 4], [10, 20, 40]) == pytest.approx(-0.5)  # the corpus grows, not it
    assert growth([3], [10]) is None
    trend = concept_trend([2024, 2024], {2023: 10, 2024: 10})
    assert trend is not None and trend.first_year == 2024 and trend.mean_year == 2024


def test_the_fixture_graph_is_what_its_script_writes() -> None:
    text = GRAPH.read_text(encoding="utf-8")
    assert text.split("\n", 1)[1] == FIXTURE.build()


def test_same_input_gives_the_same_communities_and_bytes(plain_graph: Path,
                                                         tmp_path: Path) -> None:
    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    analyze_file(plain_graph, first)
    analyze_file(plain_graph, second)
    assert first.read_bytes() == second.read_bytes()
    triples = build_triples(FIXTURE.corpus())
    assert analyze_triples(triples) == analyze_triples(triples)


def test_build_then_analyze_writes_what_build_analyze_writes(plain_graph: Path,
                                                             tmp_path: Path) -> None:
    """`kg build --analyze` appends the same triples `kg analyze` appends to the file."""
    from kg.analyze import append_triples

    triples = build_triples(FIXTURE.corpus())
    together = tmp_path / "together.ttl"
    write_graph(triples, together)
    append_triples(together, analyze_triples(triples))
    after = tmp_path / "after.ttl"
    analyze_file(plain_graph, after)
    assert after.read_bytes() == together.read_bytes()


@pytest.mark.parametrize("suffix", [".ttl", ".nt", ".nt.gz", ".ttl.gz"])
def test_a_new_analysis_replaces_the_previous_one(plain_graph: Path, tmp_path: Path,
                                                  suffix: str) -> None:
    once = tmp_path / f"once{suffix}"
    analyze_file(plain_graph, once)
    twice = tmp_path / f"twice{suffix}"
    report = analyze_file(once, twice, config=AnalyzeConfig(similar_papers=2))
    assert report.replaced
    graph = _triples(twice)
    similar = [t for t in graph if t.split(" ")[1].endswith("#similarTo>")]
    assert len(similar) == 2 * report.papers  # only the new analysis' top-2 lists
    again = tmp_path / f"again{suffix}"
    analyze_file(twice, again)
    assert _triples(again) == _triples(once)
    assert read_file(twice, marker=PAGE_RANK).tail is not None
    if not suffix.endswith(".gz"):
        # The graph's bytes are copied, not re-serialised: the first analysis' bytes again
        # (a gzipped graph is compressed anew, in one member: same triples, other bytes).
        assert again.read_bytes() == once.read_bytes()
    else:
        repeat = tmp_path / f"repeat{suffix}"
        analyze_file(twice, repeat)
        assert repeat.read_bytes() == again.read_bytes()


def test_triples_added_after_the_analytics_are_kept(plain_graph: Path, tmp_path: Path) -> None:
    once = tmp_path / "once.ttl"
    analyze_file(plain_graph, once)
    extra = (f"<{B}paper/t23-9> <https://w3id.org/paperkg/ontology#mentions> "
             f"<{B}concept/added-later> .\n")
    with once.open("a", encoding="utf-8") as out:
        out.write(extra)
    scan = read_file(once, marker=PAGE_RANK)
    assert scan.analysed and scan.tail is None  # the analytics no longer end the file
    assert B + "concept/added-later" in scan.incidence.concepts
    again = tmp_path / "again.ttl"
    analyze_file(once, again)
    graph = _triples(again)
    assert extra.rstrip(" .\n") in graph
    assert len([t for t in graph if t.split(" ")[1].endswith("#pageRank>")]) == len(
        [t for t in _triples(once) if t.split(" ")[1].endswith("#pageRank>")]) + 1


def test_turtle_kg_did_not_write_is_read_whole_with_the_same_answer(
        plain_graph: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import rdflib

    expected = read_file(plain_graph).incidence
    assert "parsing it whole" not in caplog.text  # kg's own Turtle: only statements parsed
    other = tmp_path / "rdflib.ttl"
    rdflib.Graph().parse(plain_graph).serialize(other, format="turtle")
    long_literal = tmp_path / "long.ttl"
    long_literal.write_bytes(plain_graph.read_bytes() + b'<https://example.org/x> '
                             b'<https://example.org/note> """two\nlines""" .\n')
    for path in (other, long_literal):
        caplog.clear()
        with caplog.at_level("INFO", logger="kg.analyze.filescan"):
            assert read_file(path).incidence == expected
        assert "parsing it whole" in caplog.text
    # Two predicates on one line, as kg never writes them: still read (the whole parse).
    one_line = tmp_path / "one-line.ttl"
    one_line.write_bytes(plain_graph.read_bytes() + f"<{B}paper/t23-9> a kg:Paper ; "
                         f"kg:mentions <{B}concept/on-one-line> .\n".encode())
    assert B + "concept/on-one-line" in read_file(one_line).incidence.concepts


def _triples(path: Path) -> set[str]:
    return {str(q.triple) for q in parse_file(path)}


def test_in_place_analysis_and_the_reader_agree(plain_graph: Path, tmp_path: Path) -> None:
    copy = tmp_path / "graph.ttl"
    copy.write_bytes(plain_graph.read_bytes())
    report = analyze_file(copy)
    assert report.output == copy and not report.replaced
    assert read_file(copy, marker=PAGE_RANK).analysed is True
    reader = IncidenceReader()
    reader.add_all(build_triples(FIXTURE.corpus()))
    assert reader.incidence() == read_file(copy).incidence


def test_a_store_is_analysed_in_place(plain_graph: Path, tmp_path: Path) -> None:
    from kg.query import open_source, run_named
    from kg.query.store import load_store

    store = tmp_path / "graph.db"
    load_store(store, plain_graph)
    first = analyze_store(store)
    assert not first.replaced and first.communities >= 2
    second = analyze_store(store, config=AnalyzeConfig(similar_papers=1))
    assert second.replaced
    with open_source(store=store) as source:
        rows = run_named(source, "similar-papers", {"paper": "t24-8"}).dicts()
        assert [r["other"].value for r in rows] == [B + "paper/t23-9"]
        count = source.select("PREFIX kg: <https://w3id.org/paperkg/ontology#> "
                              "SELECT (COUNT(*) AS ?n) WHERE { ?s kg:similarTo ?o }")
        assert int(count[0]["n"].value) == first.papers
    # A third analysis labels communities with one concept: the label index keeps only those.
    analyze_store(store, config=AnalyzeConfig(label_concepts=1))
    import pyoxigraph as ox

    from kg.query.labels import INDEX_GRAPH
    from kg.rdf.io import open_read_only

    opened = open_read_only(store)
    keys = {q.object.value for q in opened.quads_for_pattern(None, None, None, INDEX_GRAPH)
            if q.subject.value.startswith(B + "community/")}
    labels = {q.object.value for q in opened.quads_for_pattern(
        None, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), None, ox.DefaultGraph())
        if q.subject.value.startswith(B + "community/")}
    assert labels and all(" · " not in label for label in labels)
    assert len(keys) == len(labels)


def test_the_analysed_graph_conforms_to_the_contract_shapes() -> None:
    import pyshacl
    import rdflib

    root = Path(__file__).parents[1] / "kg" / "data"
    conforms, _, report = pyshacl.validate(
        rdflib.Graph().parse(GRAPH),
        shacl_graph=rdflib.Graph().parse(root / "shapes.ttl"),
        ont_graph=rdflib.Graph().parse(root / "ontology.ttl"),
    )
    assert conforms, report


def test_the_shapes_catch_a_broken_similarity() -> None:
    import pyshacl
    import rdflib

    root = Path(__file__).parents[1] / "kg" / "data"
    graph = rdflib.Graph().parse(GRAPH)
    node = rdflib.URIRef(B + "paper/t24-8/similar/t23-9")
    score = rdflib.URIRef("https://w3id.org/paperkg/ontology#score")
    graph.set((node, score, rdflib.Literal("1.5", datatype=rdflib.XSD.decimal)))
    conforms, _, report = pyshacl.validate(graph, shacl_graph=rdflib.Graph().parse(
        root / "shapes.ttl"))
    assert not conforms and "similar/t23-9" in report


def test_cli_analyze_prints_a_summary(plain_graph: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.nt"
    result = CliRunner().invoke(main, ["analyze", str(plain_graph), "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = dict(line.split(None, 1) if "  " not in line else line.split("  ", 1)
                 for line in result.output.splitlines())
    assert lines["papers"].strip() == "40"
    assert lines["communities"].strip() == "3"
    assert out.is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give exactly one of GRAPH and --store DIR"),
        (["x.ttl", "--store", "db"], "give exactly one of GRAPH and --store DIR"),
        (["missing.ttl"], "missing.ttl"),
        (["g.ttl", "-o", "out.jsonld"], "Turtle or N-Triples"),
    ],
)
def test_cli_analyze_errors_are_clear(args: list[str], message: str, tmp_path: Path,
                                      plain_graph: Path) -> None:
    args = [str(plain_graph) if a == "g.ttl" else a for a in args]
    result = CliRunner().invoke(main, ["analyze", *args])
    assert result.exit_code != 0
    assert message in result.output


@pytest.mark.model
def test_kg_build_analyze_writes_what_kg_analyze_writes(tmp_path: Path) -> None:
    from kg.build import run_build

    example = Path(__file__).parents[1] / "examples" / "iclr2025_abstracts.txt"
    together = tmp_path / "together.ttl"
    summary = run_build([example], together, analyze=True, n_process=1)
    plain = tmp_path / "plain.ttl"
    run_build([example], plain, n_process=1)
    analyze_file(plain)
    assert together.read_bytes() == plain.read_bytes()
    assert summary.triples > 0 and read_file(together, marker=PAGE_RANK).analysed
