"""Every named query on the hand-made fixture graph, on rdflib, Oxigraph in memory and the
Oxigraph store: same expected rows everywhere, parameters bound safely."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import kg.query.named as queries
from kg.errors import QueryError
from kg.query import open_source, run_named
from kg.query.bind import resolve
from kg.query.formats import compact
from kg.query.named import ParamKind
from kg.query.sources import Source
from kg.query.store import load_store

FIXTURES = Path(__file__).parent / "fixtures"
GRAPH = FIXTURES / "query_graph.ttl"
EXPECTED = json.loads((FIXTURES / "query_expected.json").read_text(encoding="utf-8"))
CASES = [(name, case) for name, cases in EXPECTED.items() for case in cases]
ENGINES = ["rdflib", "oxigraph-memory", "oxigraph-store"]


@pytest.fixture(scope="module", params=ENGINES)
def source(request: pytest.FixtureRequest, open_engine: Callable[[Path, str], Source]) -> Source:
    opened = open_engine(GRAPH, request.param)
    request.addfinalizer(opened.close)
    return opened


def _compact_rows(source: Source, name: str, params: dict[str, str]) -> list[list[str]]:
    result = run_named(source, name, params)
    return [[compact(term) for term in row] for row in result.rows]


@pytest.mark.parametrize(
    ("name", "case"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_named_query_gives_the_expected_result(source: Source, name: str, case: dict) -> None:
    result = run_named(source, name, case["params"])
    if "ntriples" in case:
        assert sorted(f"{t} ." for t in result.triples) == case["ntriples"]
    else:
        assert list(result.variables) == case["columns"]
        assert [[compact(term) for term in row] for row in result.rows] == case["rows"]


# The queries the query issue asks for; other stages add their own (tested with their data).
ISSUE_QUERIES = [
    "acronyms",
    "baselines",
    "co-occurring",
    "code-links",
    "concept-graph",
    "evidence",
    "paper-concepts",
    "papers-evaluated-on",
    "papers-using",
    "proposed-methods",
    "resource",
    "search",
    "similar-papers",
    "task-datasets-metrics",
    "top-concepts",
]


def test_every_query_of_the_issue_has_expected_results() -> None:
    assert sorted(EXPECTED) == ISSUE_QUERIES
    assert set(ISSUE_QUERIES) <= set(queries.names())


@pytest.mark.parametrize("name", ISSUE_QUERIES)
def test_every_example_in_a_header_finds_something(source: Source, name: str) -> None:
    named = queries.get(name)
    assert len(run_named(source, name, named.example)) > 0


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> list[Source]:
    store = tmp_path_factory.mktemp("engines") / "graph.db"
    load_store(store, GRAPH)
    return [
        open_source(GRAPH, engine="rdflib"),
        open_source(GRAPH, engine="oxigraph"),
        open_source(store=store),
    ]


def _assert_same_everywhere(engines: list[Source], name: str, params: dict[str, str]) -> None:
    """The named query gives the same rows (or triples) on every engine."""
    results = [run_named(source, name, params) for source in engines]
    shown = [
        sorted(f"{t} ." for t in r.triples)
        if r.is_graph
        else [[compact(t) for t in row] for row in r.rows]
        for r in results
    ]
    assert shown[0] == shown[1] == shown[2]


@pytest.mark.parametrize("name", queries.names())
def test_every_named_query_means_the_same_on_every_engine(engines: list[Source], name: str) -> None:
    """Its example, on rdflib, Oxigraph in memory and the indexed store: the same rows."""
    named = queries.get(name)
    _assert_same_everywhere(engines, name, named.example)


HOSTILE = [
    'diffusion model" } UNION { ?paper ?p ?o } #',
    "diffusion model' } UNION { ?paper ?p ?o } #",
    "} UNION {",
    '"""diffusion model"""',
    "diffusion model\\",
    "{ ?c ?p ?label }",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_cannot_change_the_query(source: Source, value: str) -> None:
    """The value is matched as one literal: nothing has such a label, so no rows."""
    assert _compact_rows(source, "papers-using", {"concept": value}) == []
    assert _compact_rows(source, "search", {"text": value}) == []
    assert _compact_rows(source, "evidence", {"paper": value, "concept": value}) == []


def test_a_label_full_of_syntax_is_matched_exactly(tmp_path: Path) -> None:
    """Quotes, braces and `} UNION {` in a real label: found by exactly that value."""
    label = "a\"} UNION { ?paper ?p ?o } #'b"
    graph = tmp_path / "odd.nt"
    concept = "<https://w3id.org/paperkg/resource/concept/odd>"
    paper = "<https://w3id.org/paperkg/resource/paper/x>"
    escaped = label.replace("\\", "\\\\").replace('"', '\\"')
    graph.write_text(
        f'{concept} <http://www.w3.org/2004/02/skos/core#prefLabel> "{escaped}" .\n'
        f"{paper} <https://w3id.org/paperkg/ontology#mentions> {concept} .\n",
        encoding="utf-8",
    )
    for engine in ("rdflib", "oxigraph"):
        with open_source(graph, engine=engine) as source:
            rows = _compact_rows(source, "papers-using", {"concept": label.upper()})
            assert rows == [["paper/x", "", "", "kg:mentions", "concept/odd", label]]


def test_unknown_and_missing_parameters_are_named() -> None:
    named = queries.get("papers-using")
    with pytest.raises(QueryError, match=r"no parameter 'concpt'.*concept, role"):
        resolve(named, {"concpt": "x"})
    with pytest.raises(QueryError, match=r"needs --param concept=VALUE.*--param concept="):
        resolve(named, {})


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("similar-papers", {"paper": "p1", "maxPapers": "many"}, "not an integer"),
        ("top-concepts", {"type": "Algorithm"}, "not one of Model, Method"),
        ("papers-using", {"concept": "x", "role": "invents"}, "not one of proposes"),
        ("resource", {"iri": "not an iri"}, "not an absolute IRI"),
    ],
)
def test_bad_parameter_values_are_refused(name: str, params: dict, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        resolve(queries.get(name), params)


def test_parameter_kinds_convert_case_insensitively() -> None:
    terms = resolve(queries.get("papers-using"), {"concept": "x", "role": "EVALUATESON"})
    assert terms["role"].value == "https://w3id.org/paperkg/ontology#evaluatesOn"
    terms = resolve(queries.get("resource"), {"iri": "kg:Model"})
    assert terms["iri"].value == "https://w3id.org/paperkg/ontology#Model"


def test_unknown_named_query_lists_the_known_ones() -> None:
    with pytest.raises(QueryError, match="no named query 'nope'; known: acronyms, baselines"):
        queries.get("nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SELECT * { ?s ?p ?o }", "must start with a description"),
        ("# D.\n# @param x str  X.\nSELECT * { ?s ?p ?o }", "unknown kind 'str'"),
        ("# D.\n# @param x\nSELECT * { ?s ?p ?o }", "bad parameter line"),
        ("# D.\n# @param x string  X.\nSELECT * { ?s ?p ?o }", "must set the required x"),
        ("# D.\n# @example y=1\nSELECT * { ?s ?p ?o }", "sets 'y', which is not a @param"),
        ("# D.\n# @author me\nSELECT * { ?s ?p ?o }", "unknown header tag"),
        ("# D.\n# @param limit integer?  L.\nSELECT * { ?s ?p ?o }", "cannot be called 'limit'"),
    ],
)
def test_header_mistakes_are_reported(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        queries.parse("q", text)


def test_header_fields_are_read() -> None:
    named = queries.get("similar-papers")
    assert named.form == "SELECT"
    assert named.summary == "Papers similar to a paper: those sharing the most of its concepts."
    max_papers = named.param("maxPapers")
    assert (max_papers.required, max_papers.default, max_papers.usage) == (
        False,
        "500",
        "[maxPapers=500]",
    )
    assert queries.get("concept-graph").form == "CONSTRUCT"


def test_fixture_graph_conforms_to_the_contract_shapes() -> None:
    import pyshacl
    import rdflib

    root = Path(__file__).parents[1] / "kg" / "data"
    conforms, _, report = pyshacl.validate(
        rdflib.Graph().parse(GRAPH),
        shacl_graph=rdflib.Graph().parse(root / "shapes.ttl"),
        ont_graph=rdflib.Graph().parse(root / "ontology.ttl"),
    )
    assert conforms, report


def test_fixture_graph_is_what_its_script_writes(
    load_file: Callable[[Path], ModuleType],
) -> None:
    module = load_file(FIXTURES / "query_graph.py")
    text = GRAPH.read_text(encoding="utf-8")
    assert text.split("\n", 1)[1] == module.build()


def test_named_queries_on_a_graph_from_the_rdf_builder(tmp_path: Path) -> None:
    """The builder's own sample corpus, loaded as triples the way `kg build --store` will."""
    from kg.rdf.build import build_triples
    from kg.rdf.sample import sample_corpus

    store = tmp_path / "sample.db"
    report = load_store(store, build_triples(sample_corpus()))
    assert report.triples > 100
    with open_source(store=store) as source:
        rows = run_named(source, "papers-using", {"concept": "lqca"}).dicts()
        assert [(compact(r["paper"]), compact(r["linkRole"])) for r in rows] == [
            ("paper/2501.00001", "kg:proposes")
        ]
        evidence = run_named(source, "evidence", {"paper": "2501.00001", "concept": "LQCA"})
        assert len(evidence) >= 2
        for row in evidence.dicts():
            assert row["text"].value in row["sentence"].value
        for name in queries.names():
            run_named(source, name, queries.get(name).example)  # each runs without error


LABEL_QUERIES = [
    name
    for name in queries.names()
    if any(p.kind is ParamKind.LABEL for p in queries.get(name).params)
]


@pytest.mark.parametrize("name", LABEL_QUERIES)
def test_a_label_naming_two_concepts_means_the_same_on_every_engine(
    engines: list[Source], name: str
) -> None:
    """ "SVD" names two concepts: the indexed store pre-binds both, rdflib scans; same rows."""
    named = queries.get(name)
    params = dict(named.example)
    for param in named.params:
        if param.kind is ParamKind.LABEL:
            params[param.name] = "svd"
    _assert_same_everywhere(engines, name, params)


def test_both_concepts_of_an_ambiguous_label_are_found(engines: list[Source]) -> None:
    for source in engines:
        rows = run_named(source, "papers-using", {"concept": "svd"}).dicts()
        assert sorted((compact(r["paper"]), compact(r["c"])) for r in rows) == [
            ("paper/p3", "concept/stable-video-diffusion"),
            ("paper/p4", "concept/stable-video-diffusion"),
            ("paper/p6", "concept/singular-value-decomposition"),
        ]


@pytest.mark.parametrize("name", queries.names())
def test_no_named_query_repeats_a_row(source: Source, name: str) -> None:
    """A label matched through several of a concept's labels ("Diffusion Models", "diffusion
    models") used to list each vocabulary match once per label (issue 11)."""
    result = run_named(source, name, queries.get(name).example)
    if not result.is_graph:
        rows = [tuple(compact(t) if t is not None else "" for t in row) for row in result.rows]
        assert len(rows) == len(set(rows))


def test_the_named_queries_are_checked_once_and_then_trusted() -> None:
    """`kg serve` checks every named query's text for SERVICE/FROM when it starts; its workers
    trust those texts (no parse per worker), and nothing else."""
    from kg.query.safety import RefusedQuery, _verdict, check_query, trust

    texts = queries.checked_texts()
    assert len(texts) == len(queries.names()) and all(texts)
    trust(texts)
    _verdict.cache_clear()
    for text in texts:
        check_query(text)
    assert _verdict.cache_info().misses == 0
    with pytest.raises(RefusedQuery):
        check_query(texts[0].replace("WHERE {", "WHERE { SERVICE <http://127.0.0.1:9/> {} ", 1))
