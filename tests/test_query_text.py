"""Finding a query's form and group patterns, and binding parameters through VALUES."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from kg.errors import QueryError
from kg.query.sources import bind_values
from kg.query.sparql_text import (
    group_starts,
    inject_values,
    line_column,
    query_form,
    tokens,
    undeclared_prefix,
)


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("SELECT * { ?s ?p ?o }", "SELECT"),
        ("prefix a: <http://a/#select>\n# CONSTRUCT in a comment\nask { ?s ?p ?o }", "ASK"),
        ("BASE <http://x/> CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT"),
        ("DESCRIBE <http://x/a>", "DESCRIBE"),
    ],
)
def test_query_form(text: str, form: str) -> None:
    assert query_form(text) == form


def test_an_update_is_not_a_query() -> None:
    with pytest.raises(QueryError, match="updates are not accepted"):
        query_form("INSERT DATA { <http://a> <http://b> <http://c> }")


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("SELECT ?s WHERE {@ ?s ?p ?o }", "@"),
        ("SELECT ?s {@ ?s ?p ?o }", "@"),
        ('SELECT ("{" AS ?x) (EXISTS { ?a ?b ?c } AS ?y) WHERE {@ ?s ?p ?o }', "@"),
        ("SELECT ?s # a { in a comment\nWHERE {@ ?s ?p '''}''' }", "@"),
        ("PREFIX e: <http://e/x#> SELECT * WHERE {@ ?s e:p ?o }", "@"),
        ("CONSTRUCT { ?s ?p ?o } WHERE {@ ?s ?p ?o }", "@"),
        ("CONSTRUCT {} {@ ?s ?p ?o }", "@"),
        ('ASK {@ ?s ?p "\\"{" }', "@"),
        ("SELECT * FROM <http://g> WHERE {@ { SELECT ?s { ?s ?p ?o } } }", "@"),
        ("SELECT * WHERE {@ ?s ?p ?o FILTER(?o <?x) }", "@"),
    ],
)
def test_the_where_group_is_found_whatever_precedes_it(text: str, marker: str) -> None:
    at = text.index(marker)
    clean = text.replace(marker, "")
    assert at in group_starts(clean)


def test_construct_where_short_form_cannot_take_parameters() -> None:
    with pytest.raises(QueryError, match="CONSTRUCT WHERE"):
        group_starts("CONSTRUCT WHERE { ?s ?p ?o }")


def test_a_query_without_a_group_cannot_take_parameters() -> None:
    with pytest.raises(QueryError, match="no group pattern"):
        group_starts("DESCRIBE <http://x/a>")


def test_inject_values_writes_one_row_of_terms() -> None:
    text = inject_values("SELECT * WHERE { ?s ?a ?b }", ["a", "b"], [['"x"', "<http://y>"]])
    assert text == 'SELECT * WHERE { VALUES (?a ?b) { ("x" <http://y>) } ?s ?a ?b }'


def test_every_group_pattern_gets_the_values_but_templates_and_data_do_not() -> None:
    text = (
        "CONSTRUCT { ?s ?p ?o } WHERE {@ VALUES ?z { 1 } ?s ?p ?o "
        "OPTIONAL {@ ?s ?q ?o } {@ {@ ?a ?b ?c } UNION {@ ?d ?e ?f } } "
        "FILTER EXISTS {@ ?s ?p ?x } { SELECT ?s WHERE {@ ?s ?p ?y } } MINUS {@ ?s ?p 1 } }"
    )
    expected = [i - n for n, i in enumerate(i for i, ch in enumerate(text) if ch == "@")]
    clean = text.replace("@", "")
    assert group_starts(clean) == expected


def test_only_the_groups_that_use_a_variable_get_its_values() -> None:
    text = (
        "SELECT * WHERE {@ ?s ?p ?o OPTIONAL { ?s ?q ?z } {@ {@ ?a ?p ?x } UNION { ?b ?c ?d } } }"
    )
    expected = [i - n for n, i in enumerate(i for i, ch in enumerate(text) if ch == "@")]
    assert group_starts(text.replace("@", ""), ["x"]) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Used only inside EXISTS, MINUS, or a sub-SELECT that does not project it: the
        # groups around do not have it in scope, so they get no VALUES (a block of several
        # candidates there would multiply their rows).
        "SELECT * WHERE { ?s ?p ?o FILTER EXISTS {@ ?s ?q ?x } }",
        "SELECT * WHERE { ?s ?p ?o MINUS {@ ?s ?q ?x } }",
        "SELECT ?s WHERE { { SELECT ?s (COUNT(*) AS ?n) WHERE {@ ?s ?p ?x } GROUP BY ?s } }",
        "SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } GROUP BY ?s ?x } }",
        # Projected by the sub-SELECT: in scope outside too.
        "SELECT ?s WHERE {@ { SELECT ?x WHERE {@ ?s ?p ?x } } ?x ?q ?o }",
        "SELECT ?s WHERE {@ { SELECT ?s ?x WHERE {@ ?s ?p ?x } } }",
    ],
)
def test_values_go_where_the_variable_is_in_scope(text: str) -> None:
    expected = [i - n for n, i in enumerate(i for i, ch in enumerate(text) if ch == "@")]
    assert group_starts(text.replace("@", ""), ["x"]) == expected


def test_a_variable_the_query_does_not_use_cannot_be_bound() -> None:
    with pytest.raises(QueryError, match=r"does not use \?conept"):
        inject_values("SELECT * WHERE { ?s ?p ?concept }", ["conept"], [['"x"']])


def test_a_nested_filter_sees_the_bound_value() -> None:
    """Bottom-up, a FILTER in a nested group cannot see outer bindings: the blocks make it."""
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://a"), ox.NamedNode("http://p"), ox.Literal("X")))
    query = "SELECT ?s WHERE { { ?s <http://p> ?l FILTER(LCASE(?l) = LCASE(?want)) } }"
    rows = list(store.query(bind_values(query, {"want": ox.Literal("x")})))
    assert [row["s"] for row in rows] == [ox.NamedNode("http://a")]


def test_inject_values_refuses_bad_variable_names() -> None:
    with pytest.raises(QueryError, match="not a SPARQL variable"):
        inject_values("SELECT * { ?s ?p ?o }", ["a b"], [['"x"']])


HOSTILE = [
    'x" } UNION { ?s ?p ?o } #',
    "x' } UNION { ?s ?p ?o } #",
    '"""} UNION {"""',
    "} UNION {",
    'x\\" } UNION { ?s ?p ?o } #',
    "line\nbreak } UNION { ?s ?p ?o",
    ">",
    "\u0000\u2028}",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_bound_value_stays_one_literal(value: str) -> None:
    """However the value is written, the VALUES block parses back to exactly that literal."""
    store = ox.Store()
    text = bind_values("SELECT ?v WHERE { FILTER(BOUND(?v)) }", {"v": ox.Literal(value)})
    rows = list(store.query(text))
    assert [row["v"] for row in rows] == [ox.Literal(value)]


def test_tokens_skip_comments_and_keep_strings_whole() -> None:
    found = [t.text for t in tokens('SELECT ?x { ?x <p> "a # b" } # tail')]
    assert found == ["SELECT", "?x", "{", "?x", "<p>", '"a # b"', "}"]


def test_undeclared_prefix_ignores_declared_ones_and_blank_nodes() -> None:
    assert undeclared_prefix("PREFIX a: <http://a/> SELECT * { _:b a:p ?o }") is None
    token = undeclared_prefix("SELECT * {\n ?s\n  b:p ?o }")
    assert token is not None and token.text == "b:p"
    assert line_column("SELECT * {\n ?s\n  b:p ?o }", token.start) == (3, 3)
