"""`kg query`, `kg queries` and `kg load` through click's CliRunner: exact output, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner

import kg.query.named as queries
from kg.cli import main

GRAPH = str(Path(__file__).parent / "fixtures" / "query_graph.ttl")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), prog_name="kg", catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_queries_lists_every_named_query_with_its_parameters() -> None:
    code, out, _ = run("queries")
    assert code == 0
    for named in queries.all_queries():
        assert f"{named.name}  " in out or out.count(named.name) >= 1
        assert named.summary in out
    assert "papers-using  concept [role]\n" in out
    assert "similar-papers  paper [maxPapers=500]\n" in out


def test_queries_shows_one_query_in_full() -> None:
    code, out, _ = run("queries", "papers-using")
    assert code == 0
    assert out.startswith("papers-using (SELECT)\n\nPapers linked to a concept")
    assert "  concept (label, required): The concept's label" in out
    assert "  role (role, optional): Only links with this role" in out
    assert "kg query graph.ttl papers-using --param concept='diffusion model'" in out
    assert out.rstrip().endswith("ORDER BY DESC(?year) ?title ?paper ?c")


def test_named_query_prints_a_table_and_counts_rows_on_stderr() -> None:
    code, out, err = run("query", GRAPH, "papers-using", "--param", "concept=diffusion model")
    assert code == 0
    assert out == (
        "paper     title                                             year  linkRole  "
        "c                        label\n"
        "--------  ------------------------------------------------  ----  --------  "
        "-----------------------  ---------------\n"
        "paper/p4  Scaling Diffusion Transformers                    2024  kg:uses   "
        "concept/diffusion-model  diffusion model\n"
        "paper/p3  VideoDiff: Latent Diffusion for Video Generation  2024  kg:uses   "
        "concept/diffusion-model  diffusion model\n"
    )
    assert err == "2 rows\n"


@pytest.mark.parametrize("fmt", ["json", "xml", "tsv", "csv"])
def test_results_formats(fmt: str) -> None:
    code, out, _ = run("query", GRAPH, "top-concepts", "-p", "type=Dataset", "--format", fmt)
    assert code == 0
    if fmt == "csv":
        assert out.splitlines()[:2] == [
            "c,label,type,paperCount",
            "https://w3id.org/paperkg/resource/concept/imagenet,ImageNet,"
            "https://w3id.org/paperkg/ontology#Dataset,1",
        ]
        return
    parsed = ox.parse_query_results(out.encode(), fmt_to_ox(fmt))
    rows = [tuple(s) for s in parsed]
    assert [row[1].value for row in rows] == [
        "ImageNet",
        "InfiniteBench",
        "Natural Questions",
        "UCF-101",
    ]


def fmt_to_ox(fmt: str) -> ox.QueryResultsFormat:
    return {
        "json": ox.QueryResultsFormat.JSON,
        "xml": ox.QueryResultsFormat.XML,
        "tsv": ox.QueryResultsFormat.TSV,
    }[fmt]


def test_query_text_from_a_file_and_to_a_file(tmp_path: Path) -> None:
    rq = tmp_path / "count.rq"
    rq.write_text(
        "PREFIX schema: <https://schema.org/>\n"
        "SELECT (COUNT(*) AS ?papers) WHERE { ?p a schema:ScholarlyArticle }\n"
    )
    out_file = tmp_path / "out.json"
    code, out, _ = run("query", GRAPH, "-f", str(rq), "--format", "json", "-o", str(out_file))
    assert code == 0 and out == ""
    data = json.loads(out_file.read_text())
    assert data["results"]["bindings"][0]["papers"]["value"] == "6"


def test_construct_gives_turtle_and_ntriples() -> None:
    code, out, _ = run("query", GRAPH, "concept-graph", "-p", "concept=FVD")
    assert code == 0
    assert "@prefix kg: <https://w3id.org/paperkg/ontology#> ." in out
    assert 'skos:prefLabel "Fréchet Video Distance"' in out
    code, out, _ = run("query", GRAPH, "concept-graph", "-p", "concept=FVD", "--format", "ntriples")
    assert code == 0 and len(out.splitlines()) == 6
    code, _, err = run("query", GRAPH, "concept-graph", "-p", "concept=FVD", "--format", "csv")
    assert code == 2 and "is a graph: use --format turtle" in err


def test_ask_and_free_query_parameters() -> None:
    query = "ASK { ?c <http://www.w3.org/2004/02/skos/core#altLabel> ?label }"
    assert run("query", GRAPH, query, "-p", "label=FID")[1] == "true\n"
    assert run("query", GRAPH, query, "-p", "label=fid")[1] == "false\n"
    iri = "<https://w3id.org/paperkg/resource/concept/lqca>"
    assert run("query", GRAPH, query, "-p", f"c={iri}", "-p", "label=LQCA")[1] == "true\n"


def test_limit_cuts_rows() -> None:
    code, out, err = run("query", GRAPH, "top-concepts", "--limit", "2", "--format", "tsv")
    assert code == 0 and len(out.splitlines()) == 3
    code, out, err = run("query", GRAPH, "top-concepts", "--limit", "2")
    assert err == "2 rows (cut at --limit 2)\n"


def test_a_syntax_error_shows_where_and_exits_2() -> None:
    code, out, err = run("query", GRAPH, "SELECT * WHERE {\n  ?s ?p ?o\n  FILTER(?o = }")
    assert code == 2 and out == ""
    assert err.startswith("kg query: error: SPARQL syntax error at line 3, column ")
    assert "\n    FILTER(?o = }\n" in err and err.rstrip().endswith("^")


@pytest.mark.parametrize("engine", ["rdflib", "oxigraph"])
def test_an_undeclared_prefix_is_named(engine: str) -> None:
    code, _, err = run(
        "query", "--engine", engine, GRAPH, "SELECT * WHERE { ?s skos:prefLabel ?o }"
    )
    assert code == 2
    assert "line 1, column 21: undeclared prefix 'skos:'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope-query"], "no named query 'nope-query'; known: acronyms"),
        (["papers-using"], "needs --param concept=VALUE"),
        (["papers-using", "-p", "concept"], "--param takes NAME=VALUE"),
        (["papers-using", "-p", "x=1"], "has no parameter 'x'"),
        (["INSERT DATA { <http://a> <http://b> <http://c> }"], "updates are not accepted"),
    ],
)
def test_query_mistakes_exit_2_with_a_reason(args: list[str], message: str) -> None:
    code, _, err = run("query", GRAPH, *args)
    assert code == 2 and message in err


def test_missing_inputs_are_explained(tmp_path: Path) -> None:
    code, _, err = run("query")
    assert code == 2 and "give a SOURCE" in err
    code, _, err = run("query", str(tmp_path / "none.ttl"), "top-concepts")
    assert code == 2 and "none.ttl: no such graph file or store folder" in err
    code, _, err = run("query", "--store", str(tmp_path), "top-concepts")
    assert code == 1 and "is not an Oxigraph store" in err


def test_load_into_a_store_then_query_it(tmp_path: Path) -> None:
    store = tmp_path / "graph.db"
    code, out, _ = run("load", GRAPH, "--store", str(store))
    assert code == 0 and out.startswith(f"{store}: replaced with ") and "triples in" in out
    code, out, _ = run(
        "query", "--store", str(store), "acronyms", "-p", "acronym=nq", "--format", "csv"
    )
    assert out.splitlines()[1].startswith("NQ,Natural Questions,")
    code, out, _ = run("query", str(store), "acronyms", "-p", "acronym=nq", "--format", "csv")
    assert out.splitlines()[1].startswith("NQ,Natural Questions,")


def test_load_needs_exactly_one_target() -> None:
    code, _, err = run("load", GRAPH)
    assert code == 2 and "exactly one of --store DIR and --endpoint URL" in err


@pytest.mark.parametrize("engine", ["rdflib", "oxigraph"])
def test_describe_gives_the_resource_as_turtle(engine: str) -> None:
    iri = "<https://w3id.org/paperkg/resource/concept/ucf-101>"
    code, out, _ = run("query", "--engine", engine, GRAPH, f"DESCRIBE {iri}")
    assert code == 0
    triples = sorted(str(t) for t in ox.parse(out.encode(), ox.RdfFormat.TURTLE))
    assert len(triples) == 7 and all(t.startswith(iri + " ") for t in triples)
