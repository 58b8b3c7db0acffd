"""Named-query parameters: check them and turn their string values into RDF terms.

Values arrive as strings (command line, query page); each parameter's kind says which term it
becomes. Nothing here writes query text: the terms are bound by the engine (see `sources`).

>>> from kg.query import named as queries
>>> terms = resolve(queries.get("top-concepts"), {"type": "task"})
>>> terms["type"].value
'https://w3id.org/paperkg/ontology#Task'
>>> sorted(resolve(queries.get("similar-papers"), {"paper": "p1"}))
['maxPapers', 'paper']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from kg.errors import QueryError
from kg.namespaces import KG_IRI, PREFIXES
from kg.query.named import NamedQuery, Param, ParamKind, Ranked
from kg.query.terms import XSD, Term
from kg.types import ConceptType, Role


@dataclass(frozen=True, slots=True)
class Hints:
    """What a named query tells a source with indexes (`kg.query.labels`, `kg.query.ranks`)
    about its variables. A source may use them to pre-bind candidates; the rows are the same
    without them.

    `labels`: variable -> a text equal to one of the concept's labels, ignoring case.
    `contains`: variable -> a text one of the concept's labels contains, ignoring case.
    `ranked`: the query's rows come in the rank order of this concept variable.
    `query`: the named query's name (a source may have a proven faster way to answer it:
    `kg.query.answers`).
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    contains: Mapping[str, str] = field(default_factory=dict)
    ranked: Ranked | None = None
    query: str | None = None


def hints(query: NamedQuery, values: Mapping[str, str]) -> Hints:
    """The hints of a named query's header for these parameter values."""

    def targets(kind: ParamKind) -> dict[str, str]:
        return {
            p.target: values[p.name]
            for p in query.params
            if p.kind is kind and p.target and values.get(p.name) is not None
        }

    return Hints(
        targets(ParamKind.LABEL), targets(ParamKind.CONTAINS), query.ranked, query.name
    )


def resolve(query: NamedQuery, values: Mapping[str, str]) -> dict[str, Term]:
    """The bindings for `query` from `values`, with defaults filled in.

    Raises `QueryError` for an unknown or missing parameter, or a value of the wrong kind; the
    message names the query, the parameter and an example.
    """
    known = {p.name: p for p in query.params}
    for name in values:
        if name not in known:
            listing = ", ".join(known) or "none"
            raise QueryError(
                f"query {query.name!r} has no parameter {name!r} (its parameters: {listing})"
            )
    bindings: dict[str, Term] = {}
    for param in query.params:
        value = values.get(param.name, param.default)
        if value is None:
            if param.required:
                raise QueryError(
                    f"query {query.name!r} needs --param {param.name}=VALUE "
                    f"({param.description}); example: {_example(query)}"
                )
            continue
        bindings[param.name] = convert(param, value, query=query.name)
    return bindings


def _example(query: NamedQuery) -> str:
    args = " ".join(f"--param {k}={_quote(v)}" for k, v in query.example.items())
    return f"kg query GRAPH {query.name} {args}".strip()


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)


def convert(param: Param, value: str, *, query: str = "") -> Term:
    """The term a string value stands for, given the parameter's kind."""
    where = f"query {query!r}, parameter {param.name!r}" if query else f"parameter {param.name!r}"
    if param.kind in (ParamKind.STRING, ParamKind.LABEL, ParamKind.CONTAINS):
        return ox.Literal(value)
    if param.kind is ParamKind.INTEGER:
        try:
            return ox.Literal(str(int(value.strip())), datatype=ox.NamedNode(XSD + "integer"))
        except ValueError:
            raise QueryError(f"{where}: {value!r} is not an integer") from None
    if param.kind is ParamKind.IRI:
        return parse_iri(value, where=where)
    if param.kind is ParamKind.CTYPE:
        return _enum_iri(value, [t.value for t in ConceptType], where)
    return _enum_iri(value, [r.value for r in Role], where)


def _enum_iri(value: str, names: list[str], where: str) -> ox.NamedNode:
    local = value.strip().removeprefix("kg:").removeprefix(KG_IRI)
    for name in names:
        if local.lower() == name.lower():
            return ox.NamedNode(KG_IRI + name)
    raise QueryError(f"{where}: {value!r} is not one of {', '.join(names)}")


def parse_iri(value: str, *, where: str = "IRI") -> ox.NamedNode:
    """An IRI given as `<…>`, absolutely, or with a known prefix (`kg:Model`).

    >>> parse_iri("kg:Model").value
    'https://w3id.org/paperkg/ontology#Model'
    """
    text = value.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    prefix, sep, local = text.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        text = PREFIXES[prefix] + local
    if not sep or not prefix.replace("+", "").replace("-", "").replace(".", "").isalnum():
        raise QueryError(f"{where}: {value!r} is not an absolute IRI (e.g. https://…, kg:Model)")
    try:
        return ox.NamedNode(text)
    except ValueError as exc:
        raise QueryError(f"{where}: {value!r} is not a valid IRI: {exc}") from None
