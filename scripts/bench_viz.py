#!/usr/bin/env python
"""Measure the browser view: page size and time to interactive in headless Chromium.

    python scripts/bench_viz.py                    # synthetic graphs of 500 and 5,000 nodes
    python scripts/bench_viz.py --nodes 500 5000 20000 --runs 5
    python scripts/bench_viz.py --screenshot out/graph.ttl docs/screenshot.png --select LLM
    python scripts/bench_viz.py --map out/graph.nt --max-nodes 2000 --runs 3   # the map view
    python scripts/bench_viz.py --map-screenshot out/graph.ttl docs/map.png

Each size is a synthetic paperkg graph (`viz.synthetic`, 40% papers, Zipf-like concept
popularity) drawn whole (`--max-nodes` = its size). Figures:

- build: Python time of `viz.build_page` from the Turtle file (parse, views, layout, HTML);
- size: bytes of the HTML file;
- script: ms from navigation start until the page's own script starts (HTML parsed, the
  inlined vis-network evaluated);
- ready (time to interactive): ms from navigation start to the first drawn frame, with
  every control wired (`kgViz.readyAt`);
- settled: ms until the physics simulation stops (equal to ready when physics is off);
- click: ms for a click's neighbourhood highlight and details panel (`kgViz.focus`).

Browser figures are medians over `--runs` fresh pages. Chromium is Debian's
(/usr/bin/chromium) with the flags of tests/conftest.py, driven by Playwright; nothing is
downloaded. The machine is shared: compare figures within one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from perf_doc import recording

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT: Any = {"width": 1400, "height": 850}


def measure_page(browser: Any, path: Path) -> dict[str, float]:
    """Open `path` in a fresh context and read the page's own timestamps."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri())
        # Selectors, not script predicates: the page's CSP forbids eval, which
        # wait_for_function needs to poll.
        page.wait_for_selector('body[data-settled="1"]', state="attached", timeout=300_000)
        figures = page.evaluate(
            "({script: kgViz.startedAt, ready: kgViz.readyAt, settled: performance.now()})"
        )
        # Click the concept in the most papers: the largest neighbourhood to highlight.
        figures["click"] = page.evaluate(
            """() => { const hub = kgViz.nodes.get().reduce((a, b) => (b.n > a.n ? b : a));
                       const t = performance.now(); kgViz.focus(hub.id);
                       return performance.now() - t; }"""
        )
        figures["nodes"] = page.evaluate("kgViz.nodes.length")
    finally:
        context.close()
    if errors or requests != [path.as_uri()]:
        raise SystemExit(f"{path}: console errors {errors} or requests {requests}")
    return figures


def bench(sizes: list[int], runs: int, seed: int) -> None:
    from playwright.sync_api import sync_playwright

    from viz import build_page
    from viz.synthetic import write_synthetic

    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for n in sizes:
            graph = write_synthetic(Path(tmp) / f"graph-{n}.ttl", n, seed=seed)
            builds = []
            for _ in range(runs):
                start = time.perf_counter()
                page = build_page(graph, max_nodes=n)
                builds.append(time.perf_counter() - start)
            path = Path(tmp) / f"graph-{n}.html"
            path.write_text(page.html, encoding="utf-8")
            measured = [measure_page(browser, path) for _ in range(runs)]
            assert all(m["nodes"] == page.nodes == n for m in measured)

            def med(key: str, figures: list[dict[str, float]] = measured) -> float:
                return statistics.median(m[key] for m in figures)

            rows.append((n, page.edges, page.physics, statistics.median(builds),
                         path.stat().st_size, med("script"), med("ready"), med("settled"),
                         med("click")))
        browser.close()
    print(f"{'nodes':>6} {'links':>6} {'physics':>7} {'build s':>7} {'size MB':>7} "
          f"{'script ms':>9} {'ready ms':>8} {'settled ms':>10} {'click ms':>8}")
    for n, edges, physics, build, size, script, ready, settled, click in rows:
        print(f"{n:>6} {edges:>6} {'on' if physics else 'off':>7} {build:>7.2f} "
              f"{size / 1e6:>7.2f} {script:>9.0f} {ready:>8.0f} {settled:>10.0f} {click:>8.0f}")
    print(f"(medians of {runs} runs; ready = time to interactive from navigation start)")


def bench_map(graph: Path, max_nodes: int, runs: int) -> None:
    """The map view of a real (analysed) graph: Python build time, page size, time to
    interactive (`kgMap.readyAt`: first frame drawn, labels sized, every control wired) and the
    time of a click on the largest community (panel and selection)."""
    from playwright.sync_api import Error, sync_playwright

    from viz import build_page

    start = time.perf_counter()
    page = build_page(graph, view="map", max_nodes=max_nodes)
    build = time.perf_counter() - start
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        path = Path(tmp) / "map.html"
        path.write_text(page.html, encoding="utf-8")
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for _ in range(runs):
            context = browser.new_context(viewport=VIEWPORT)
            tab = context.new_page()
            errors: list[str] = []

            def record(error: Error, found: list[str] = errors) -> None:
                found.append(str(error))

            tab.on("pageerror", record)
            tab.goto(path.as_uri())
            tab.wait_for_selector('body[data-ready="1"]', state="attached", timeout=300_000)
            figures = tab.evaluate(
                "({script: kgMap.startedAt, ready: kgMap.readyAt,"
                " labels: kgMap.visibleLabels().length})"
            )
            figures["click"] = tab.evaluate(
                "() => { const t = performance.now(); kgMap.selectCommunity(0);"
                " return performance.now() - t; }"
            )
            context.close()
            if errors:
                raise SystemExit(f"page errors: {errors}")
            rows.append(figures)
        browser.close()
    size = len(page.html.encode("utf-8"))

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(f"map of {graph}: {page.nodes:,} concepts, {page.edges:,} links")
    print(f"{'build s':>7} {'size MB':>7} {'script ms':>9} {'ready ms':>8} {'labels':>6} "
          f"{'click ms':>8}")
    print(f"{build:>7.2f} {size / 1e6:>7.2f} {med('script'):>9.0f} {med('ready'):>8.0f} "
          f"{med('labels'):>6.0f} {med('click'):>8.0f}")
    print(f"(medians of {runs} runs; ready = time to interactive from navigation start)")


def map_screenshot(graph: Path, out: Path, max_nodes: int) -> None:
    """Save a screenshot of the map view of `graph` (for the README)."""
    from playwright.sync_api import sync_playwright

    from viz import render_html

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        html = render_html(graph, Path(tmp) / "map.html", view="map", max_nodes=max_nodes)
        assert isinstance(html, Path)
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
        page.goto(html.as_uri())
        page.wait_for_selector('body[data-ready="1"]', state="attached", timeout=300_000)
        page.evaluate("kgMap.selectCommunity(0)")
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")


def screenshot(graph: Path, out: Path, max_nodes: int, select: str | None) -> None:
    """Render `graph`, open it, let the layout settle, select the node named `select` (as a
    click would), and save a screenshot for the README."""
    from playwright.sync_api import sync_playwright

    from viz import render_html

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        html = render_html(graph, Path(tmp) / "graph.html", max_nodes=max_nodes)
        assert isinstance(html, Path)
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
        page.goto(html.as_uri())
        page.wait_for_selector('body[data-settled="1"]', state="attached", timeout=300_000)
        page.evaluate("kgViz.network.fit()")
        if select:
            hits = page.evaluate("(q) => kgViz.search(q).map(h => h.id)", select)
            if not hits:
                raise SystemExit(f"no node matches {select!r}")
            page.evaluate("(id) => { kgViz.select(id); kgViz.network.focus(id, {scale: 0.65}); }",
                          hits[0])
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[500, 5000],
                        help="graph sizes to measure (default: 500 5000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (median reported)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic graphs")
    parser.add_argument("--screenshot", nargs=2, type=Path, metavar=("GRAPH", "PNG"),
                        help="instead of measuring, save a screenshot of GRAPH's page")
    parser.add_argument("--max-nodes", type=int, default=None,
                        help="node budget of the screenshot page (default: 300) or the map "
                        "(default: 2000)")
    parser.add_argument("--map", type=Path, metavar="GRAPH",
                        help="instead, measure the map view of GRAPH (an analysed graph)")
    parser.add_argument("--map-screenshot", nargs=2, type=Path, metavar=("GRAPH", "PNG"),
                        help="instead, save a screenshot of GRAPH's map view")
    parser.add_argument("--select", metavar="LABEL",
                        help="select this node (as a click does) before the screenshot")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    if args.map:
        bench_map(args.map, args.max_nodes or 2000, args.runs)
    elif args.map_screenshot:
        map_screenshot(args.map_screenshot[0], args.map_screenshot[1], args.max_nodes or 2000)
    elif args.screenshot:
        screenshot(args.screenshot[0], args.screenshot[1], args.max_nodes or 300, args.select)
    else:
        bench(args.nodes, args.runs, args.seed)


if __name__ == "__main__":
    measuring = not {"--no-doc", "--screenshot", "--map-screenshot"} & set(sys.argv)
    with recording("viz-map" if "--map" in sys.argv else "viz", enabled=measuring):
        main()
