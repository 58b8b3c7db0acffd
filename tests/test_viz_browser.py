"""The browser view in headless Chromium (the `page` fixture records console errors and every
request): it draws, makes no request, searches, filters, highlights, and shows graph strings as
text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from viz import build_page
from viz.synthetic import synthetic_triples

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).parent / "fixtures" / "viz_graph.ttl"
ATTACK = 'Attacking <script>alert(1)</script> Transformers & "friends"'
# State is read from DOM attributes: the page's Content-Security-Policy forbids eval, which
# `wait_for_function` needs to poll a script predicate.
READY = 'body[data-ready="1"]'
SETTLED = 'body[data-settled="1"]'


@pytest.fixture(scope="module")
def fixture_html(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, int]:
    page = build_page(FIXTURE)
    path = tmp_path_factory.mktemp("viz") / "graph.html"
    path.write_text(page.html, encoding="utf-8")
    return path, page.nodes, page.edges


def _open(page: Any, path: Path) -> None:
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_selector(READY, state="attached", timeout=60_000)
    # Small pages relax their layout with physics before the first frame, then stop it.
    page.wait_for_selector(SETTLED, state="attached", timeout=60_000)


def _node_id(page: Any, name: str) -> int:
    hits = page.evaluate("(q) => kgViz.search(q).filter(h => h.name === q).map(h => h.id)", name)
    assert len(hits) == 1, (name, hits)
    return int(hits[0])


def _wait_selected(page: Any, node: int | None = None) -> None:
    selector = "#details[data-selected]" if node is None else f'#details[data-selected="{node}"]'
    page.wait_for_selector(selector, state="attached")


def _hover(page: Any, client_xy: list[float]) -> None:
    x, y = client_xy
    page.mouse.move(x - 15, y - 15)
    page.mouse.move(x, y, steps=3)
    page.wait_for_selector("#tooltip:not([hidden])")


def _node_point(page: Any, node: int) -> list[float]:
    """Client coordinates of a node's centre."""
    return page.evaluate(
        """(id) => { const net = kgViz.network;
                     const d = net.canvasToDOM(net.getPositions([id])[id]);
                     const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
                     return [r.left + d.x, r.top + d.y]; }""",
        node,
    )


def _edge_point(page: Any, src: int, dst: int) -> list[float]:
    """Whole-pixel client coordinates over the edge src -> dst and over no node."""
    point = page.evaluate(
        """([a, b]) => {
          const net = kgViz.network;
          const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
          const pa = net.canvasToDOM(net.getPositions([a])[a]);
          const pb = net.canvasToDOM(net.getPositions([b])[b]);
          for (let t = 0.5; t < 0.9; t += 0.02) {
            const cx = Math.round(r.left + pa.x + (pb.x - pa.x) * t);
            const cy = Math.round(r.top + pa.y + (pb.y - pa.y) * t);
            for (let dx = -5; dx <= 5; dx++) for (let dy = -5; dy <= 5; dy++) {
              const p = {x: cx + dx - r.left, y: cy + dy - r.top};
              const e = net.getEdgeAt(p);
              if (e === undefined || net.getNodeAt(p) !== undefined) continue;
              const edge = kgViz.edges.get(e);
              if (edge.from === a && edge.to === b) return [cx + dx, cy + dy];
            }
          }
          return null; }""",
        [src, dst],
    )
    assert point, "no free pixel on the edge"
    return point


def test_page_draws_offline_without_errors(page: Any, fixture_html: tuple[Path, int, int]) -> None:
    path, nodes, edges = fixture_html
    _open(page, path)
    assert page.evaluate("kgViz.nodes.length") == nodes == 15
    assert page.evaluate("kgViz.edges.length") == edges == 15
    # Drawn: vis knows the positions of every node, and the canvas is not blank.
    assert page.evaluate("Object.keys(kgViz.network.getPositions()).length") == nodes
    assert page.evaluate(
        "(() => { const c = document.querySelector('#mynetwork canvas');"
        " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " for (let i = 0; i < d.length; i += 4) if (d[i + 3] && d[i] < 200) return true;"
        " return false; })()"
    )
    # The layout was relaxed by physics before the first frame; the simulation is now off.
    assert page.evaluate("kgViz.network.physics.options.enabled") is False
    assert page.is_checked("#physics") is False
    assert page.console_errors == []
    assert page.requests == [path.as_uri()]
    assert page.dialogs == []


def test_search_focuses_the_node(page: Any, fixture_html: tuple[Path, int, int]) -> None:
    _open(page, fixture_html[0])
    page.fill("#search", "LLMs")
    assert page.inner_text("#search-results li >> nth=0").startswith("large language model")
    page.press("#search", "Enter")
    llm = _node_id(page, "large language model")
    _wait_selected(page, llm)
    assert page.evaluate("kgViz.network.getSelectedNodes()") == [llm]
    assert page.inner_text("#details h2") == "large language model"
    assert "Papers that use it (3)" in page.inner_text("#details")
    # The neighbourhood is drawn over a veil that dims the rest.
    near = page.evaluate("kgViz.neighbourhood().map(id => kgViz.nodes.get(id).name)")
    assert sorted(near) == sorted(["large language model", ATTACK, "Faster diffusion models",
                                   "LQCA: Long Question Coreference Adaptation for long contexts"])
    assert page.console_errors == []


def test_type_filter_hides_nodes(page: Any, fixture_html: tuple[Path, int, int]) -> None:
    _open(page, fixture_html[0])
    page.uncheck('#type-filters input[data-type="Metric"]')
    hidden = page.evaluate("Object.values(kgViz.network.body.nodes)"
                           ".filter(n => n.options.hidden).map(n => n.options.name).sort()")
    assert hidden == ["F1 score", "Fréchet Inception Distance"]
    page.check('#type-filters input[data-type="Metric"]')
    assert page.evaluate("Object.values(kgViz.network.body.nodes)"
                         ".filter(n => n.options.hidden).length") == 0
    page.uncheck('#role-filters input[data-role="uses"]')
    assert page.evaluate("kgViz.edges.get().filter(e => e.hidden).length") == 3


def test_graph_strings_show_as_text(page: Any, fixture_html: tuple[Path, int, int]) -> None:
    _open(page, fixture_html[0])
    attack = _node_id(page, ATTACK)
    _hover(page, _node_point(page, attack))
    assert page.inner_text("#tooltip .head") == ATTACK
    assert "<b>bold</b>" in page.inner_text("#tooltip")
    page.evaluate("(id) => kgViz.focus(id)", attack)
    assert page.inner_text("#details h2") == ATTACK
    page.evaluate("(id) => kgViz.focus(id)", _node_id(page, "diffusion model"))
    assert "<img src=x onerror=alert(2)>" in page.inner_text("#details")
    injected = page.evaluate(
        "document.querySelectorAll('#details script, #details img, #details b, "
        "#tooltip script, #tooltip b, a[href^=\"javascript\"]').length")
    assert injected == 0
    assert page.dialogs == [] and page.console_errors == []


def test_hovering_a_link_shows_its_evidence(page: Any, fixture_html: tuple[Path, int, int]) -> None:
    _open(page, fixture_html[0])
    paper = _node_id(page, "LQCA: Long Question Coreference Adaptation for long contexts")
    concept = _node_id(page, "Long Question Coreference Adaptation")
    _hover(page, _edge_point(page, paper, concept))
    assert page.inner_text("#tooltip .meta >> nth=0") == (
        "proposes → Long Question Coreference Adaptation")
    assert page.eval_on_selector_all("#tooltip mark", "ms => ms.map(m => m.textContent)") == [
        "Long Question Coreference Adaptation", "LQCA"]
    assert "We introduce the Long Question Coreference Adaptation (LQCA) method" in (
        page.inner_text("#tooltip blockquote >> nth=0"))


def test_click_shows_details_and_physics_switch(page: Any,
                                                fixture_html: tuple[Path, int, int]) -> None:
    _open(page, fixture_html[0])
    longbench = _node_id(page, "LongBench")
    x, y = _node_point(page, longbench)
    page.mouse.click(x, y)
    _wait_selected(page, longbench)
    details = page.inner_text("#details")
    assert "Papers that evaluate on it (2)" in details and ATTACK in details
    page.check("#physics")
    assert page.evaluate("kgViz.network.physics.options.enabled") is True
    page.uncheck("#physics")
    assert page.evaluate("kgViz.network.physics.options.enabled") is False


def test_large_page_draws_with_physics_off(page: Any, tmp_path: Path) -> None:
    built = build_page(synthetic_triples(1200, seed=5), max_nodes=1200)
    path = tmp_path / "big.html"
    path.write_text(built.html, encoding="utf-8")
    _open(page, path)
    assert page.evaluate("kgViz.nodes.length") == built.nodes == 1200
    assert page.evaluate("kgViz.network.physics.options.enabled") is False
    assert page.is_checked("#physics") is False
    assert page.console_errors == [] and page.requests == [path.as_uri()]


def test_ego_page_opens_on_its_focus(page: Any, tmp_path: Path) -> None:
    built = build_page(FIXTURE, focus="FID", hops=2)
    path = tmp_path / "ego.html"
    path.write_text(built.html, encoding="utf-8")
    _open(page, path)
    _wait_selected(page)
    assert page.inner_text("#details h2") == "Fréchet Inception Distance"
    assert page.evaluate("kgViz.nodes.length") == built.nodes == 5  # FID, p3 and its 3 others


@pytest.mark.model
def test_sample_corpus_page(page: Any, tmp_path: Path) -> None:
    """`kg build … --html` on the bundled sample: every paper and concept drawn, searchable."""
    from kg.build import run_build
    from viz.load import load_graph, open_store

    example = Path(__file__).resolve().parents[1] / "examples" / "iclr2025_abstracts.txt"
    summary = run_build([example], tmp_path / "graph.ttl", html=tmp_path / "graph.html")
    graph = load_graph(open_store(summary.output))
    assert summary.papers_read == 19
    _open(page, tmp_path / "graph.html")
    assert page.evaluate("kgViz.nodes.length") == graph.number_of_nodes()
    assert page.evaluate("kgViz.edges.length") == graph.number_of_edges()
    assert page.evaluate("kgViz.nodes.get().filter(n => n.group === 'Paper').length") == 19
    page.fill("#search", "LLM")
    page.press("#search", "Enter")
    _wait_selected(page)
    assert page.inner_text("#details h2") == "large language model"
    assert page.console_errors == [] and page.requests == [(tmp_path / "graph.html").as_uri()]
