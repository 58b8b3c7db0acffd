"""Result formats: SPARQL 1.1 JSON/XML/CSV/TSV that standard parsers read back, sorted graphs,
and the terminal table."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from kg.errors import QueryError
from kg.query.formats import ResultFormat, compact, serialize, write_table
from kg.query.result import QueryResult

XSD = "http://www.w3.org/2001/XMLSchema#"
TERMS = [
    ox.NamedNode("https://w3id.org/paperkg/resource/concept/lqca"),
    ox.Literal('tab\there, "quotes", comma, new\nline'),
    ox.Literal("Fréchet", language="fr"),
    ox.Literal("12", datatype=ox.NamedNode(XSD + "integer")),
    ox.BlankNode("b0"),
    None,
]
RESULT = QueryResult(
    "SELECT", ("iri", "text", "lang", "count", "blank", "unbound"), [tuple(TERMS), tuple(TERMS)]
)
PARSERS = {
    ResultFormat.JSON: ox.QueryResultsFormat.JSON,
    ResultFormat.XML: ox.QueryResultsFormat.XML,
    ResultFormat.TSV: ox.QueryResultsFormat.TSV,
}


@pytest.mark.parametrize("fmt", list(PARSERS))
def test_results_read_back_by_pyoxigraph(fmt: ResultFormat) -> None:
    parsed = ox.parse_query_results(serialize(RESULT, fmt), PARSERS[fmt])
    assert [v.value for v in parsed.variables] == list(RESULT.variables)
    assert [tuple(solution) for solution in parsed] == RESULT.rows


@pytest.mark.parametrize("fmt", ["json", "xml", "csv", "tsv"])
def test_results_read_back_by_rdflib(fmt: str) -> None:
    import io

    from rdflib.query import Result

    data = serialize(RESULT, ResultFormat(fmt))
    parsed = Result.parse(io.BytesIO(data), format=fmt)
    assert [str(v) for v in parsed.vars] == list(RESULT.variables)
    rows = list(parsed)
    assert len(rows) == 2
    assert str(rows[0][1]) == 'tab\there, "quotes", comma, new\nline'


def test_csv_holds_plain_values_with_crlf() -> None:
    text = serialize(RESULT, ResultFormat.CSV).decode()
    assert text.startswith("iri,text,lang,count,blank,unbound\r\n")
    assert '"tab\there, ""quotes"", comma, new\nline",Fréchet,12,_:b0,\r\n' in text


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        (ResultFormat.JSON, {"head": {}, "boolean": True}),
        (ResultFormat.TABLE, "true\n"),
        (ResultFormat.CSV, "true\r\n"),
    ],
)
def test_ask_answers(fmt: ResultFormat, expected: object) -> None:
    data = serialize(QueryResult("ASK", boolean=True), fmt).decode()
    assert (json.loads(data) if fmt is ResultFormat.JSON else data) == expected


def test_ask_in_xml_reads_back() -> None:
    data = serialize(QueryResult("ASK", boolean=False), ResultFormat.XML)
    assert bool(ox.parse_query_results(data, ox.QueryResultsFormat.XML)) is False


def test_graphs_are_sorted_and_use_the_contract_prefixes() -> None:
    a, b = (
        ox.NamedNode("https://w3id.org/paperkg/resource/a"),
        ox.NamedNode("https://w3id.org/paperkg/resource/b"),
    )
    label = ox.NamedNode("http://www.w3.org/2004/02/skos/core#prefLabel")
    triples = [ox.Triple(b, label, ox.Literal("B")), ox.Triple(a, label, ox.Literal("A"))] * 2
    result = QueryResult("CONSTRUCT", triples=triples)
    nt = serialize(result, ResultFormat.NTRIPLES).decode().splitlines()
    assert nt == sorted(nt) and len(nt) == 2
    turtle = serialize(result, ResultFormat.TURTLE).decode()
    assert "@prefix skos: <http://www.w3.org/2004/02/skos/core#> ." in turtle
    assert 'skos:prefLabel "A"' in turtle
    assert serialize(result, ResultFormat.TURTLE) == serialize(
        QueryResult("CONSTRUCT", triples=list(reversed(triples))), ResultFormat.TURTLE
    )


def test_a_format_must_fit_the_query_form() -> None:
    with pytest.raises(QueryError, match="is a graph: use --format turtle"):
        serialize(QueryResult("CONSTRUCT"), ResultFormat.CSV)
    with pytest.raises(QueryError, match="is not a graph"):
        serialize(RESULT, ResultFormat.TURTLE)


def test_table_aligns_compacts_and_cuts() -> None:
    table = write_table(RESULT, max_width=12).splitlines()
    assert table[0].split() == ["iri", "text", "lang", "count", "blank", "unbound"]
    assert table[1].startswith("------------  ------------")
    assert table[2] == table[3]
    assert table[2].startswith('concept/lqca  tab here, "…  Fréchet@fr     12  _:b0')
    assert table[0].index("lang") == table[2].index("Fréchet")
    assert table[0].index("count") + len("count") == table[2].index("12") + len("12")


def test_compact_forms() -> None:
    assert compact(ox.NamedNode("http://www.w3.org/2004/02/skos/core#Concept")) == "skos:Concept"
    assert compact(ox.NamedNode("https://example.org/x")) == "https://example.org/x"
    assert compact(None) == ""
