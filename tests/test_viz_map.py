"""The map view in headless Chromium: colours by community, labels that thin out and come back
on zoom (never overlapping at the first view), the year filter, the mean-year overlay, the
community panel with its exports, and "open in focus view". The `page` fixture records console
errors and every request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from viz import build_page

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"
ANALYSED = FIXTURES / "analyze_graph.ttl"
READY = 'body[data-ready="1"]'
SEGMENTATION = {"image segmentation", "U-Net", "Cityscapes", "mIoU"}
TRANSLATION = {"machine translation", "Transformer", "WMT14", "BLEU"}


@pytest.fixture(scope="module")
def map_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = build_page(ANALYSED, view="map")
    path = tmp_path_factory.mktemp("map") / "map.html"
    path.write_text(page.html, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def big_map_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic graph of 3,000 nodes, analysed: 1,000 concepts and many labels."""
    from kg.analyze import analyze_triples
    from viz.synthetic import synthetic_triples

    triples = synthetic_triples(3000, seed=3)
    page = build_page(triples + analyze_triples(triples), view="map")
    path = tmp_path_factory.mktemp("bigmap") / "map.html"
    path.write_text(page.html, encoding="utf-8")
    return path


def _open(page: Any, path: Path) -> None:
    page.set_viewport_size({"width": 1400, "height": 850})
    page.goto(path.as_uri())
    page.wait_for_selector(READY, state="attached", timeout=60_000)


def _by_name(page: Any) -> dict[str, dict[str, Any]]:
    nodes = page.evaluate("kgMap.nodes.get().map(n => ({id: n.id, name: n.name, color: n.color,"
                          " hidden: !!n.hidden, c: n.c}))")
    return {n["name"]: n for n in nodes}


def test_the_map_draws_concepts_coloured_by_community(page: Any, map_html: Path) -> None:
    _open(page, map_html)
    nodes = _by_name(page)
    # Concepts in at least two papers only (the papers' own methods stay off the map).
    assert set(nodes) == SEGMENTATION | TRANSLATION | {
        "rising method", "sparse mixture", "router collapse", "expert pruning"}
    segmentation = {nodes[n]["color"] for n in SEGMENTATION}
    translation = {nodes[n]["color"] for n in TRANSLATION}
    assert len(segmentation) == 1 and len(translation) == 1 and segmentation != translation
    legend = page.locator("#communities button").all_inner_texts()
    assert len(legend) == 3
    assert page.evaluate("kgMap.network.physics.options.enabled") is False
    assert page.console_errors == []
    assert page.requests == [map_html.as_uri()]


def test_labels_thin_out_and_come_back_on_zoom(page: Any, big_map_html: Path) -> None:
    _open(page, big_map_html)
    total = page.evaluate("kgMap.nodes.length")
    first = page.evaluate("kgMap.visibleLabels()")
    assert 5 <= len(first) < total / 4
    boxes = page.evaluate("kgMap.labelBoxes()")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            overlap = a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
            assert not overlap, (a, b)
    # The most linked concepts are labelled first.
    counts = dict(page.evaluate("kgMap.nodes.get().map(n => [n.id, n.n])"))
    top = sorted(counts, key=lambda i: -counts[i])[:3]
    assert set(top) <= set(first) | set(_unlabelled_for_lack_of_room(page, top))
    page.evaluate("kgMap.network.moveTo({scale: kgMap.network.getScale() * 8})")
    page.evaluate("kgMap.network.redraw()")
    zoomed = page.evaluate("kgMap.visibleLabels()")
    assert len(zoomed) > len(first)
    assert page.console_errors == []


def _unlabelled_for_lack_of_room(page: Any, ids: list[int]) -> list[int]:
    """Of `ids`, those whose label tier is above 0 (another label took the room first)."""
    return [i for i in ids if page.evaluate("(id) => kgMap.nodes.get(id).tier", i) > 0]


def test_the_year_filter_hides_concepts_without_papers_in_the_range(page: Any,
                                                                     map_html: Path) -> None:
    _open(page, map_html)
    page.select_option("#year-from", "2021")
    page.select_option("#year-to", "2022")
    page.wait_for_selector('body[data-years="2021-2022"]', state="attached")
    nodes = _by_name(page)
    assert nodes["sparse mixture"]["hidden"] and nodes["expert pruning"]["hidden"]
    assert not nodes["rising method"]["hidden"] and not nodes["BLEU"]["hidden"]
    page.select_option("#year-from", "2024")
    page.select_option("#year-to", "2024")
    nodes = _by_name(page)
    assert not nodes["sparse mixture"]["hidden"]


def test_the_mean_year_overlay_recolours_the_map(page: Any, map_html: Path) -> None:
    _open(page, map_html)
    before = _by_name(page)
    page.check('#colour-mode input[value="year"]')
    page.wait_for_selector('body[data-colour="year"]', state="attached")
    after = _by_name(page)
    assert after["BLEU"]["color"] != before["BLEU"]["color"]
    # Rising method's papers are newer on average than BLEU's: another colour on the ramp.
    assert after["rising method"]["color"] != after["BLEU"]["color"]
    assert page.is_visible("#year-legend")


def test_clicking_a_community_lists_its_concepts_and_papers(page: Any, map_html: Path) -> None:
    _open(page, map_html)
    nodes = _by_name(page)
    index = nodes["BLEU"]["c"]
    page.click(f'#communities button[data-community="{index}"]')
    page.wait_for_selector(f'#details[data-selected="community-{index}"]', state="attached")
    concepts = set(page.locator("#details ul.concepts button").all_inner_texts())
    assert concepts == TRANSLATION
    papers = page.locator("#details ul.papers li").count()
    assert papers == 20  # every translation paper links all four of its concepts
    with page.expect_download() as download:
        page.click("#export-csv")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    lines = text.strip().splitlines()
    assert lines[0] == "id,title,year,venue,authors,url" and len(lines) == 21
    assert any(line.startswith("t24-8,Paper t24-8,2024") for line in lines)
    with page.expect_download() as download:
        page.click("#export-bib")
    bib = Path(download.value.path()).read_text(encoding="utf-8")
    assert bib.count("@inproceedings{") == 20 and "title = {Paper t24-8}" in bib
    with page.expect_download() as download:
        page.click("#export-png")
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.console_errors == []


def test_a_concept_opens_in_focus_view(page: Any, map_html: Path) -> None:
    _open(page, map_html)
    node = _by_name(page)["sparse mixture"]["id"]
    page.evaluate("(id) => kgMap.selectConcept(id)", node)
    page.wait_for_selector(f'#details[data-selected="concept-{node}"]', state="attached")
    page.click("#open-focus")
    page.wait_for_selector(f'body[data-focus="{node}"]', state="attached")
    shown = {name for name, n in _by_name(page).items() if not n["hidden"]}
    assert "sparse mixture" in shown and "image segmentation" not in shown


def test_the_served_map_links_to_the_focus_view(tmp_path: Path) -> None:
    page = build_page(ANALYSED, view="map", focus_url="/graph?view=ego&focus=")
    assert '"focusUrl": "/graph?view=ego\\u0026focus="' in page.html or \
        '"focusUrl": "/graph?view=ego&focus="' in page.html


def test_kg_viz_writes_the_map(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kg.cli import main

    out = tmp_path / "map.html"
    result = CliRunner().invoke(main, ["viz", str(ANALYSED), "--view", "map", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Wrote {out}: 12 nodes")
    assert "in 3 communities" in result.output
    assert "<title>Map of the field" in out.read_text(encoding="utf-8")


def test_the_map_of_a_graph_without_analysis_computes_its_communities(tmp_path: Path) -> None:
    """Communities found for the page (and said so) when `kg analyze` has not run."""
    import importlib.util

    from kg.rdf import build_triples

    spec = importlib.util.spec_from_file_location("analyze_graph", FIXTURES / "analyze_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = build_page(build_triples(module.corpus()), view="map")
    assert "Communities computed for this page" in page.note
    analysed = build_page(ANALYSED, view="map")
    assert "computed for this page" not in analysed.note
    assert page.nodes == analysed.nodes == 12
