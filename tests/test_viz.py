"""The browser view without a browser: loading, views and their size policy, layout, the HTML
(offline, escaped, deterministic) and `kg viz`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.errors import InputError, KGError
from viz import build_page, render_html
from viz.layout import compute_layout
from viz.load import load_graph, open_store, strongest_role
from viz.page import PHYSICS_MAX_NODES, safe_url
from viz.synthetic import synthetic_triples
from viz.views import concept_view, ego_view, find_node, kinds, rank_concepts, whole_view

FIXTURE = Path(__file__).parent / "fixtures" / "viz_graph.ttl"
B = "https://w3id.org/paperkg/resource/"


@pytest.fixture(scope="module")
def graph():  # type: ignore[no-untyped-def]
    return load_graph(open_store(FIXTURE))


@pytest.fixture(scope="module")
def big_graph():  # type: ignore[no-untyped-def]
    return load_graph(open_store(synthetic_triples(600, seed=3)))


def _page_json(html: str, name: str) -> object:
    """The JSON a page assigns to `var NAME = …;`."""
    match = re.search(rf"var {name} = (.*?);\n", html)
    assert match, name
    return json.loads(match.group(1))


# ---- loading ----

def test_load_reads_papers_concepts_and_roles(graph) -> None:  # type: ignore[no-untyped-def]
    papers, concepts = kinds(graph)
    assert len(papers) == 4 and len(concepts) == 11
    llm = graph.nodes[B + "concept/large-language-model"]
    assert llm["ctype"] == "Model" and llm["count"] == 3
    assert llm["aliases"] == ("LLM", "LLMs", "large language models")
    assert {graph.nodes[c]["ctype"] for c in concepts} == {
        "Model", "Method", "Task", "Dataset", "Metric", "Concept"}
    p1 = B + "paper/p1"
    roles = {graph.nodes[c]["label"]: graph.edges[p1, c]["role"] for c in graph.successors(p1)}
    assert roles == {
        "Long Question Coreference Adaptation": "proposes", "question answering": "addresses",
        "LongBench": "evaluatesOn", "F1 score": "measures", "GPT-4o": "comparesWith",
        "large language model": "uses", "context window": "mentions"}
    robustness = graph.edges[B + "paper/p2", B + "concept/robustness"]
    assert robustness == {"role": "addresses", "keyword": True}
    # An untitled paper is named by the start of its abstract.
    assert graph.nodes[B + "paper/h-0123456789abcdef"]["label"].startswith("Diffusion models are")


def test_strongest_role_prefers_text_roles_then_keywords() -> None:
    assert strongest_role({"mentions", "uses", "evaluatesOn"}) == "evaluatesOn"
    assert strongest_role({"mentions", "hasKeyword", "proposes"}) == "proposes"
    assert strongest_role({"mentions", "hasKeyword"}) == "hasKeyword"
    assert strongest_role({"mentions"}) == "mentions"


def test_sources_give_the_same_graph(tmp_path: Path) -> None:
    import gzip

    import pyoxigraph as ox
    import rdflib

    gz = tmp_path / "g.ttl.gz"
    gz.write_bytes(gzip.compress(FIXTURE.read_bytes()))
    folder = tmp_path / "store"
    on_disk = ox.Store(str(folder))
    on_disk.load(path=str(FIXTURE), format=ox.RdfFormat.TURTLE)
    on_disk.flush()
    expected = load_graph(open_store(FIXTURE))
    for source in (gz, str(FIXTURE), rdflib.Graph().parse(FIXTURE), folder,
                   list(ox.parse(path=str(FIXTURE), format=ox.RdfFormat.TURTLE))):
        got = load_graph(open_store(source))
        assert sorted(got.nodes(data=True)) == sorted(expected.nodes(data=True))
        assert sorted(got.edges(data=True)) == sorted(expected.edges(data=True))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [("missing.ttl", None, "no such file"), ("g.xyz", "x", "unknown RDF format"),
     ("bad.ttl", "<a> <b> .", "not valid")],
)
def test_unreadable_sources_name_the_file(tmp_path: Path, name: str, content: str | None,
                                          message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        open_store(path)
    assert name in str(info.value)


# ---- views ----

def test_whole_view_keeps_a_small_graph_whole(graph) -> None:  # type: ignore[no-untyped-def]
    view = whole_view(graph, max_nodes=300)
    assert view.graph.number_of_nodes() == 15 and view.graph.number_of_edges() == 15
    assert view.note == "All 4 papers and 11 concepts."


def test_whole_view_size_policy(big_graph) -> None:  # type: ignore[no-untyped-def]
    view = whole_view(big_graph, max_nodes=100)
    sub = view.graph
    assert sub.number_of_nodes() == 100
    papers, concepts = kinds(sub)
    # The concepts drawn are exactly the most connected ones.
    ranked = rank_concepts(big_graph, kinds(big_graph)[1])
    assert set(concepts) == set(ranked[: len(concepts)])
    assert len(concepts) >= 50
    # Every paper drawn is linked to a drawn concept, with the graph's own links.
    assert all(sub.out_degree(p) >= 1 for p in papers)
    assert all(sub.edges[e] == big_graph.edges[e] for e in sub.edges)
    all_papers, all_concepts = kinds(big_graph)
    assert view.note.startswith("Showing 100 of 600 nodes")
    assert f"{len(all_concepts) - len(concepts)} concepts and " in view.note
    assert f"{len(all_papers) - len(papers)} papers" in view.note


def test_find_node_matches_labels_aliases_and_ids(graph) -> None:  # type: ignore[no-untyped-def]
    assert find_node(graph, "LLMs") == B + "concept/large-language-model"
    assert find_node(graph, "Large-Language Models") == B + "concept/large-language-model"
    assert find_node(graph, "p3") == B + "paper/p3"
    assert find_node(graph, B + "concept/fid") == B + "concept/fid"
    with pytest.raises(InputError, match="did you mean 'diffusion model'"):
        find_node(graph, "difusion model")


def test_ego_view_by_hops_and_budget(graph) -> None:  # type: ignore[no-untyped-def]
    one = ego_view(graph, "LLM", hops=1)
    assert one.focus == B + "concept/large-language-model"
    assert set(one.graph) == {one.focus, B + "paper/p1", B + "paper/p2", B + "paper/p3"}
    two = ego_view(graph, "LLM", hops=2)
    # Two hops: the papers' other concepts, but not the paper only linked to diffusion model.
    assert two.graph.number_of_nodes() == 14
    assert B + "paper/h-0123456789abcdef" not in two.graph
    cut = ego_view(graph, "LLM", hops=2, max_nodes=5)
    assert cut.graph.number_of_nodes() == 5
    assert set(one.graph) < set(cut.graph)  # nearest first
    assert "Showing the 5 of 14 nodes" in cut.note


def test_concept_view_weights_links_by_shared_papers(graph) -> None:  # type: ignore[no-untyped-def]
    view = concept_view(graph)
    assert kinds(view.graph)[0] == []
    llm, longbench = B + "concept/large-language-model", B + "concept/longbench"
    assert view.graph.edges[llm, longbench]["weight"] == 2
    assert view.graph.edges[llm, B + "concept/fid"]["weight"] == 1
    assert not view.graph.has_edge(B + "concept/fid", longbench)


# ---- layout ----

def test_layout_places_every_node_deterministically(big_graph) -> None:  # type: ignore[no-untyped-def]
    from viz import layout

    original = layout.CORE_MAX
    layout.CORE_MAX = 50  # force the placement of nodes outside the simulated core
    try:
        first = compute_layout(big_graph)
        second = compute_layout(big_graph)
    finally:
        layout.CORE_MAX = original
    assert first == second
    assert set(first) == set(big_graph)
    assert len(set(first.values())) == len(first)


# ---- the page ----

def test_page_is_offline_and_inlines_vis() -> None:
    html = render_html(FIXTURE)
    assert isinstance(html, str)
    assert "default-src 'none'" in html  # the CSP forbids every request
    assert "<link" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "cdn" not in html.lower().replace("cdn_resources", "")
    assert "vis.Network" in html and "bootstrap" not in html.lower()


def test_page_escapes_graph_strings_and_drops_unsafe_links() -> None:
    html = render_html(FIXTURE)
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    nodes = _page_json(html, "KG_NODES")
    assert isinstance(nodes, list)
    by_name = {n["name"]: n for n in nodes}
    attack = by_name['Attacking <script>alert(1)</script> Transformers & "friends"']
    assert "url" not in attack  # javascript:alert(3) is never a link
    assert by_name["LQCA: Long Question Coreference Adaptation for long contexts"]["code"] == (
        "https://github.com/example/lqca")
    assert safe_url("JAVASCRIPT:alert(1)") is None and safe_url("data:text/html,x") is None


def test_page_carries_evidence_with_the_mention_marked() -> None:
    html = render_html(FIXTURE)
    nodes = {n["id"]: n for n in _page_json(html, "KG_NODES")}  # type: ignore[union-attr]
    edges = _page_json(html, "KG_EDGES")
    assert isinstance(edges, list)
    lqca = next(e for e in edges
                if nodes[e["to"]]["name"] == "Long Question Coreference Adaptation")
    marked = [ev[0][ev[1]:ev[2]] for ev in lqca["ev"]]
    assert marked == ["Long Question Coreference Adaptation", "LQCA"]
    assert lqca["nev"] == 2


def test_page_is_deterministic() -> None:
    import rdflib

    first = render_html(FIXTURE)
    assert render_html(FIXTURE) == first
    assert render_html(rdflib.Graph().parse(FIXTURE), source_name="viz_graph.ttl") == first


def test_physics_is_off_above_the_threshold() -> None:
    small = build_page(FIXTURE)
    assert small.physics and _page_json(small.html, "KG_OPTIONS")["physics"]["enabled"]  # type: ignore[index]
    big = build_page(synthetic_triples(PHYSICS_MAX_NODES + 20), max_nodes=PHYSICS_MAX_NODES + 20)
    assert big.nodes == PHYSICS_MAX_NODES + 20 and not big.physics
    options = _page_json(big.html, "KG_OPTIONS")
    assert options["physics"]["enabled"] is False and options["edges"]["smooth"] is False  # type: ignore[index]
    nodes = _page_json(big.html, "KG_NODES")
    assert all("x" in n and "y" in n for n in nodes)  # type: ignore[union-attr]


def test_render_html_writes_the_file(tmp_path: Path) -> None:
    out = render_html(FIXTURE, tmp_path / "sub" / "g.html", focus="GPT-4o", hops=1)
    assert out == tmp_path / "sub" / "g.html"
    html = out.read_text(encoding="utf-8")
    page = _page_json(html, "KG_PAGE")
    assert page["view"] == "ego" and page["drawn"] == 2  # type: ignore[index]


def test_query_view_draws_what_a_named_query_returns() -> None:
    page = build_page(FIXTURE, query="concept-graph", params={"concept": "LLM"})
    names = sorted(n["name"] for n in _page_json(page.html, "KG_NODES"))  # type: ignore[union-attr]
    assert names == sorted([
        "large language model", 'Attacking <script>alert(1)</script> Transformers & "friends"',
        "Faster diffusion models", "LQCA: Long Question Coreference Adaptation for long contexts"])
    assert page.edges == 3
    with pytest.raises(KGError, match="no paper or concept to draw"):
        build_page(FIXTURE, query="papers-using", params={"concept": "no such thing"})


# ---- kg viz ----

def test_cli_writes_the_page_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "g.html"
    result = CliRunner().invoke(main, ["viz", str(FIXTURE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Wrote {out}: 15 nodes, 15 links, ")
    assert "All 4 papers and 11 concepts." in result.output
    assert out.read_text(encoding="utf-8") == render_html(FIXTURE)


def test_cli_errors_are_clean(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["viz", str(FIXTURE), "--focus", "nothing like it",
                                  "-o", str(tmp_path / "g.html")])
    assert result.exit_code == 2
    assert "error: no concept or paper is named 'nothing like it'" in result.output
    assert not (tmp_path / "g.html").exists()
    result = runner.invoke(main, ["viz", str(FIXTURE), "--query", "papers-using", "-p", "oops"])
    assert result.exit_code == 2 and "--param takes NAME=VALUE" in result.output


@pytest.mark.parametrize("view", [["--view", "whole", "--max-nodes", "900"], ["--view", "map"]])
def test_page_bytes_do_not_depend_on_the_hash_seed(tmp_path: Path, view: list[str]) -> None:
    """Issue 13.11: two runs with different PYTHONHASHSEED write the same page (the layout used
    to follow set order through `graph.subgraph`)."""
    import os
    import subprocess
    import sys

    from viz.synthetic import write_synthetic

    graph = write_synthetic(tmp_path / "g.nt", 1200, seed=3)
    kg = Path(sys.executable).with_name("kg")
    pages = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"page-{hash_seed}.html"
        subprocess.run(
            [str(kg), "viz", str(graph), *view, "-o", str(out)],
            env={**os.environ, "PYTHONHASHSEED": hash_seed}, check=True, capture_output=True,
            timeout=600,
        )
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]
