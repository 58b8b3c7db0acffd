"""The query page of `kg serve` in headless Chromium (issue 13): highlighting, PREFIX lines
added as known prefixes are typed, completion from the graph's vocabulary, a result table with
sorting, filtering and paging, downloads — all offline (every request goes to the server)."""

from __future__ import annotations

import csv
import io
import json
import random
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

GRAPH = Path(__file__).parent / "fixtures" / "query_graph.ttl"
NUMBERS = list(range(1, 121))
random.Random(0).shuffle(NUMBERS)
VALUES_QUERY = (
    "SELECT ?n ?word WHERE { VALUES ?n { " + " ".join(map(str, NUMBERS)) + " } "
    'BIND(CONCAT("w", STR(?n)) AS ?word) }'
)


def _only_local(page: Any, base: str) -> None:
    assert page.requests and all(url.startswith(base) for url in page.requests), page.requests
    assert page.console_errors == []


def _column(page: Any, index: int) -> list[str]:
    return page.locator(f"#results tbody tr td:nth-child({index})").all_inner_texts()


@pytest.mark.browser
@pytest.mark.server
def test_editor_highlights_adds_prefixes_and_completes(
    kg_server: Callable[..., Any], page: Any
) -> None:
    server = kg_server(str(GRAPH))
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-vocabulary]")  # GET /vocabulary answered
    assert int(page.get_attribute("body", "data-vocabulary")) > 50
    page.fill("#query", 'SELECT ?x WHERE { ?x <urn:p> "text" } # note\nLIMIT 5')
    assert page.locator("#highlight .tok-kw").all_inner_texts() == ["SELECT", "WHERE", "LIMIT"]
    assert page.locator("#highlight .tok-var").all_inner_texts() == ["?x", "?x"]
    assert page.locator("#highlight .tok-iri").all_inner_texts() == ["<urn:p>"]
    assert page.locator("#highlight .tok-str").all_inner_texts() == ['"text"']
    assert page.locator("#highlight .tok-com").all_inner_texts() == ["# note"]
    assert page.locator("#highlight .tok-num").all_inner_texts() == ["5"]

    # Typing a known prefix adds its PREFIX line; its terms are offered from the graph.
    page.fill("#query", "")
    page.click("#query")
    page.keyboard.type("SELECT ?t WHERE { ?p dcterms:")
    assert page.input_value("#query") == (
        "PREFIX dcterms: <http://purl.org/dc/terms/>\nSELECT ?t WHERE { ?p dcterms:"
    )
    page.keyboard.type("tit")
    page.wait_for_selector("#complete li")
    assert page.locator("#complete li").first.inner_text().startswith("dcterms:title")
    page.keyboard.press("Enter")
    page.keyboard.type(" ?t }")
    assert page.input_value("#query").endswith("{ ?p dcterms:title ?t }")
    assert page.locator("#complete").is_hidden()
    # Ctrl+Space completes a prefix name, then the ontology's terms with their comments.
    page.keyboard.press("Control+End")
    page.keyboard.type("\n?p k")
    page.keyboard.press("Control+Space")
    offered = page.locator("#complete li").all_inner_texts()
    assert offered and offered[0].startswith("kg:")
    page.keyboard.press("Enter")  # kg: -> its PREFIX line, and its terms are offered
    page.keyboard.type("paperC")
    item = page.locator("#complete li").first
    assert item.inner_text().startswith("kg:paperCount")
    assert "property" in item.locator("small").inner_text()
    page.keyboard.press("Escape")
    text = page.input_value("#query")
    assert text.startswith("PREFIX dcterms: <http://purl.org/dc/terms/>\n"
                           "PREFIX kg: <https://w3id.org/paperkg/ontology#>\n")
    assert text.endswith("\n?p kg:paperC")
    # The prefix list adds a line too, once.
    page.select_option("#prefix-add", "skos")
    page.select_option("#prefix-add", "skos")
    assert page.input_value("#query").count("PREFIX skos:") == 1
    _only_local(page, server.base)


@pytest.mark.browser
@pytest.mark.server
def test_result_table_sorts_filters_pages_and_downloads(
    kg_server: Callable[..., Any], page: Any, http_request: Any
) -> None:
    server = kg_server(str(GRAPH))
    page.goto(server.base + "/?query=" + urllib.parse.quote(VALUES_QUERY))
    page.wait_for_selector("#results tbody tr")
    assert page.locator("#status").inner_text().startswith("120 results in ")
    assert page.locator("#page-info").inner_text() == "Rows 1–50 of 120"
    assert _column(page, 1) == [str(n) for n in NUMBERS[:50]]
    page.click("#next")
    assert page.locator("#page-info").inner_text() == "Rows 51–100 of 120"
    assert _column(page, 1) == [str(n) for n in NUMBERS[50:100]]
    # Sorting is numeric for numbers, and goes back to the first page.
    page.click("#results th >> text=n")
    assert page.locator("#results th").first.get_attribute("aria-sort") == "ascending"
    assert _column(page, 1)[:3] == ["1", "2", "3"]
    assert page.locator("#page-info").inner_text() == "Rows 1–50 of 120"
    page.click("#results th >> text=n")
    assert _column(page, 1)[:3] == ["120", "119", "118"]
    # Text columns sort too; the filter matches any cell, and pages follow.
    page.click("#results th >> text=word")
    assert _column(page, 2)[:3] == ["w1", "w2", "w3"]
    page.fill("#filter", "11")
    assert page.locator("#page-info").inner_text() == "Rows 1–11 of 11 (filtered from 120)"
    assert _column(page, 1) == ["11", "110", "111", "112", "113", "114", "115", "116", "117",
                                "118", "119"]  # fmt: skip
    assert page.locator("#next").is_disabled()
    page.fill("#filter", "")
    page.select_option("#page-size", "25")
    assert page.locator("#page-info").inner_text() == "Rows 1–25 of 120"
    assert page.locator("#results tbody tr").count() == 25
    # Downloads: the whole result from the server, as CSV and JSON.
    links = page.locator("#downloads a")
    assert links.all_inner_texts() == ["JSON", "XML", "CSV", "TSV"]
    status, _, body = http_request(server.base + links.nth(2).get_attribute("href"))
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    assert status == 200 and rows[0] == ["n", "word"] and len(rows) == 121
    status, _, body = http_request(server.base + links.nth(0).get_attribute("href"))
    assert status == 200 and len(json.loads(body)["results"]["bindings"]) == 120
    _only_local(page, server.base)


@pytest.mark.server
def test_vocabulary_lists_the_graph_terms_with_the_ontology_documentation(
    kg_server: Callable[..., Any], http_request: Any
) -> None:
    server = kg_server(str(GRAPH))
    status, headers, body = http_request(server.base + "/vocabulary")
    assert status == 200 and headers["Content-Type"] == "application/json"
    vocabulary = json.loads(body)
    terms = {t["iri"]: t for t in vocabulary["terms"]}
    paper_count = terms["https://w3id.org/paperkg/ontology#paperCount"]
    assert paper_count["used"] is True and paper_count["kind"] == "property"
    assert "comment" in paper_count
    assert terms["http://www.w3.org/2004/02/skos/core#prefLabel"]["used"] is True
    assert terms["https://schema.org/ScholarlyArticle"]["kind"] == "class"
    assert vocabulary["prefixes"]["kg"] == "https://w3id.org/paperkg/ontology#"
    assert http_request(server.base + "/vocabulary")[2] == body  # from the cache
