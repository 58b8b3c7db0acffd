"""The named SPARQL queries: one `.rq` file each in this folder, documented by a header comment.

Header format (comment lines before the query; the description is every line before the first
`@` tag)::

    # Papers linked to a concept, matched on its prefLabel or any altLabel, ignoring case.
    #
    # @param concept string  The concept's label or acronym.
    # @param role role?  Only links with this role.
    # @param max_papers integer=500  Ignore concepts in more papers than this.
    # @example concept="diffusion model"

A parameter is a variable of the query (`?concept`) bound to the value given, never pasted into
the text. `KIND?` marks an optional parameter (unbound when absent), `KIND=DEFAULT` one with a
default. Kinds: `string`, `integer`, `iri`, `ctype` (Model, Method, Task, Dataset, Metric,
Concept -> the `kg:` class), `role` (proposes, uses, … -> the `kg:` property) and
`label(?c)`: a string the query matches against concept labels ignoring case, `?c` being the
matched concept throughout the query; a source with a label index (`kg.query.labels`) then
pre-binds `?c` to the candidates instead of scanning every label.

>>> q = get("papers-using")
>>> q.form, [p.name for p in q.params]
('SELECT', ['concept', 'role'])
>>> q.example
{'concept': 'diffusion model'}
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources

from kg.errors import QueryError

__all__ = ["NamedQuery", "Param", "ParamKind", "all_queries", "get", "names", "parse"]


class ParamKind(StrEnum):
    """How a parameter's string value becomes an RDF term (see `kg.query.bind`)."""

    STRING = "string"
    INTEGER = "integer"
    IRI = "iri"
    CTYPE = "ctype"
    ROLE = "role"
    LABEL = "label"


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a named query: the variable `?name` it binds."""

    name: str
    kind: ParamKind
    description: str
    required: bool = True
    default: str | None = None
    target: str | None = None  # for `label(?c)`: the variable holding the matched concept

    @property
    def usage(self) -> str:
        """`name` as shown in listings: `concept`, `[role]`, `[max_papers=500]`."""
        if self.required:
            return self.name
        if self.default is not None:
            return f"[{self.name}={self.default}]"
        return f"[{self.name}]"


@dataclass(frozen=True, slots=True)
class NamedQuery:
    """A named query: its SPARQL text and what its header says about it.

    `form` is SELECT, CONSTRUCT, ASK or DESCRIBE; `example` maps parameter names to the values
    of the header's `@example` (a working invocation, also used by tests and the query page).
    """

    name: str
    description: str
    text: str
    form: str
    params: tuple[Param, ...] = ()
    example: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """The first sentence of the description."""
        first = self.description.split("\n\n")[0].replace("\n", " ")
        return first.split(". ")[0].rstrip(".") + "."

    def param(self, name: str) -> Param:
        """The parameter called `name`; `QueryError` names the known ones."""
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise QueryError(f"query {self.name!r} has no parameter {name!r} (it has: {known})")


_PARAM = re.compile(
    r"@param\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<kind>[a-z]+)"
    r"(?:\(\?(?P<target>[A-Za-z_][A-Za-z0-9_]*)\))?"
    r"(?:(?P<optional>\?)|=(?P<default>\S+))?\s+(?P<description>.+)"
)


def parse(name: str, text: str) -> NamedQuery:
    """Read a named query from the text of its `.rq` file; `ValueError` says what is wrong.

    >>> nq = parse("t", "# Count.\\n# @param n integer=3  How many.\\nSELECT * { ?s ?p ?o }")
    >>> nq.description, nq.params[0].default, nq.params[0].required
    ('Count.', '3', False)
    """
    from kg.query.sparql_text import query_form

    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line[1:].strip())
    description_lines: list[str] = []
    params: list[Param] = []
    example: dict[str, str] = {}
    for line in header:
        if line.startswith("@param"):
            params.append(_parse_param(name, line))
        elif line.startswith("@example"):
            example = _parse_example(name, line.removeprefix("@example"))
        elif line.startswith("@"):
            raise ValueError(f"{name}.rq: unknown header tag in {line!r} (use @param, @example)")
        elif not params and not example:
            description_lines.append(line)
    description = "\n".join(description_lines).strip()
    if not description:
        raise ValueError(f"{name}.rq: the header comment must start with a description")
    known = {p.name for p in params}
    for key in example:
        if key not in known:
            raise ValueError(f"{name}.rq: @example sets {key!r}, which is not a @param")
    missing = [p.name for p in params if p.required and p.name not in example]
    if missing:
        raise ValueError(f"{name}.rq: @example must set the required {', '.join(missing)}")
    return NamedQuery(name, description, text, query_form(text), tuple(params), example)


def _parse_param(name: str, line: str) -> Param:
    match = _PARAM.fullmatch(line)
    if not match:
        raise ValueError(
            f"{name}.rq: bad parameter line {line!r}; write "
            "'@param NAME KIND[?|=DEFAULT]  DESCRIPTION'"
        )
    try:
        kind = ParamKind(match["kind"])
    except ValueError:
        kinds = ", ".join(k.value for k in ParamKind)
        raise ValueError(f"{name}.rq: unknown kind {match['kind']!r} (known: {kinds})") from None
    if (kind is ParamKind.LABEL) != (match["target"] is not None):
        raise ValueError(
            f"{name}.rq: write a label parameter as 'label(?var)', ?var being the concept it "
            f"matches (and only a label parameter names a variable): {line!r}"
        )
    default = match["default"]
    required = not (match["optional"] or default is not None)
    return Param(
        match["name"], kind, match["description"].strip(), required, default, match["target"]
    )


def _parse_example(name: str, text: str) -> dict[str, str]:
    example: dict[str, str] = {}
    for item in shlex.split(text):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{name}.rq: @example items are name=value, got {item!r}")
        example[key] = value
    return example


@cache
def _registry() -> dict[str, NamedQuery]:
    found: dict[str, NamedQuery] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".rq"):
            qname = entry.name.removesuffix(".rq")
            found[qname] = parse(qname, entry.read_text(encoding="utf-8"))
    return found


def names() -> list[str]:
    """The names of every named query, sorted."""
    return list(_registry())


def all_queries() -> list[NamedQuery]:
    """Every named query, sorted by name."""
    return list(_registry().values())


def get(name: str) -> NamedQuery:
    """The named query `name`; `QueryError` lists the known names."""
    try:
        return _registry()[name]
    except KeyError:
        raise QueryError(
            f"no named query {name!r}; known: {', '.join(names())} (see `kg queries`)"
        ) from None
