"""The named SPARQL queries of paperkg: one `.rq` file each in the `queries/` folder,
documented by a header comment (loaded by this module).

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
pre-binds `?c` to the candidates instead of scanning every label. `contains(?c)` is a string
that one of `?c`'s labels contains, ignoring case (a rank index finds the candidates).

`@ranked ?c [?type] [kg:role]` says the query's rows come in the rank order of the concept
`?c`: it sorts by `DESC(?paperCount) LCASE(?label) ?c` first (the concept's own count and
prefLabel) and ends with `LIMIT n`; `?type`, when bound, is a type `?c` must have, and
`kg:role` a property that links a paper to `?c` in every row. `@ranked ?paper [property]`
says the same of papers sorted by `DESC(?year) ?title ?paper` (newest first; the
property is one every row's paper has). A source with a rank index (`kg.query.ranks`) then runs
the query on the first concepts (papers) by rank, more until it has `n` rows, instead of on
all of them; the rows are the same. `@ranked ?paper property ?c` says every row's paper links
to the label-matched concept `?c` by `property`; the query needs no LIMIT then: when the
caller wants only the first rows (a server's page), the source runs it on the first papers
by rank that link to the concept's candidates.

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
from kg.namespaces import PREFIXES
from kg.query.ranks import ORDERS
from kg.query.safety import check_query
from kg.query.sparql_text import query_form

__all__ = ["NamedQuery", "Param", "ParamKind", "Ranked", "all_queries", "get", "names", "parse"]


class ParamKind(StrEnum):
    """How a parameter's string value becomes an RDF term (see `kg.query.bind`)."""

    STRING = "string"
    INTEGER = "integer"
    IRI = "iri"
    CTYPE = "ctype"
    ROLE = "role"
    LABEL = "label"
    CONTAINS = "contains"


# Kinds that name the concept variable they match: `label(?c)`, `contains(?c)`.
TARGETED = (ParamKind.LABEL, ParamKind.CONTAINS)


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a named query: the variable `?name` it binds."""

    name: str
    kind: ParamKind
    description: str
    required: bool = True
    default: str | None = None
    target: str | None = None  # for `label(?c)`, `contains(?c)`: the matched concept's variable

    @property
    def usage(self) -> str:
        """`name` as shown in listings: `concept`, `[role]`, `[max_papers=500]`."""
        if self.required:
            return self.name
        if self.default is not None:
            return f"[{self.name}={self.default}]"
        return f"[{self.name}]"


@dataclass(frozen=True, slots=True)
class Ranked:
    """A query's `@ranked ?variable [?type_variable]` tag, with the query's final LIMIT."""

    variable: str
    type_variable: str | None
    limit: int | None  # the query's LIMIT (None: only a caller's row limit makes a walk)
    # Concepts: a property every row links a paper to the concept by; papers: a property
    # every row's paper has (to the concept `link`, when given).
    role: str | None = None
    order: str = "concepts"  # or "papers" (see `kg.query.ranks.ORDERS`)
    link: str | None = None  # papers: the label-matched concept variable `role` points at


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
    ranked: Ranked | None = None

    @property
    def summary(self) -> str:
        """The first sentence of the description."""
        first = self.description.split("\n\n")[0].replace("\n", " ")
        return first.split(". ")[0].rstrip(".") + "."

    def as_json(self) -> dict[str, object]:
        """The query as the server lists it (`/queries`, the query page): plain JSON values."""
        return {
            "name": self.name,
            "form": self.form,
            "summary": self.summary,
            "description": self.description,
            "params": [
                {
                    "name": p.name,
                    "kind": p.kind.value,
                    "required": p.required,
                    "default": p.default,
                    "description": p.description,
                }
                for p in self.params
            ],
            "example": self.example,
            "text": self.text,
        }

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
    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line[1:].strip())
    description_lines: list[str] = []
    params: list[Param] = []
    example: dict[str, str] = {}
    ranked: Ranked | None = None
    for line in header:
        if line.startswith("@param"):
            params.append(_parse_param(name, line))
        elif line.startswith("@example"):
            example = _parse_example(name, line.removeprefix("@example"))
        elif line.startswith("@ranked"):
            ranked = _parse_ranked(name, line, text)
            if query_form(text) != "SELECT":
                raise ValueError(f"{name}.rq: only a SELECT query can be @ranked")
        elif line.startswith("@"):
            raise ValueError(
                f"{name}.rq: unknown header tag in {line!r} (use @param, @example, @ranked)"
            )
        elif not params and not example:
            description_lines.append(line)
    description = "\n".join(description_lines).strip()
    if not description:
        raise ValueError(f"{name}.rq: the header comment must start with a description")
    known = {p.name for p in params}
    for key in example:
        if key not in known:
            raise ValueError(f"{name}.rq: @example sets {key!r}, which is not a @param")
    if ranked is not None and ranked.link is not None and not any(
        p.kind is ParamKind.LABEL and p.target == ranked.link for p in params
    ):
        raise ValueError(
            f"{name}.rq: @ranked names ?{ranked.link}: give it a label(?{ranked.link}) parameter"
        )
    missing = [p.name for p in params if p.required and p.name not in example]
    if missing:
        raise ValueError(f"{name}.rq: @example must set the required {', '.join(missing)}")
    return NamedQuery(name, description, text, query_form(text), tuple(params), example, ranked)


# Request parameters the server keeps for itself (`/queries/NAME?format=&offset=&limit=`).
RESERVED_PARAMS = ("format", "offset", "limit")


def _parse_param(name: str, line: str) -> Param:
    match = _PARAM.fullmatch(line)
    if not match:
        raise ValueError(
            f"{name}.rq: bad parameter line {line!r}; write "
            "'@param NAME KIND[?|=DEFAULT]  DESCRIPTION'"
        )
    if match["name"] in RESERVED_PARAMS:
        raise ValueError(
            f"{name}.rq: a parameter cannot be called {match['name']!r} (the server's "
            f"{', '.join(RESERVED_PARAMS)} choose the format and page): {line!r}"
        )
    try:
        kind = ParamKind(match["kind"])
    except ValueError:
        kinds = ", ".join(k.value for k in ParamKind)
        raise ValueError(f"{name}.rq: unknown kind {match['kind']!r} (known: {kinds})") from None
    if (kind in TARGETED) != (match["target"] is not None):
        raise ValueError(
            f"{name}.rq: write a {kind.value} parameter as '{kind.value}(?var)', ?var being the "
            f"concept it matches (and only label and contains parameters name a variable): "
            f"{line!r}"
        )
    default = match["default"]
    required = not (match["optional"] or default is not None)
    return Param(
        match["name"], kind, match["description"].strip(), required, default, match["target"]
    )


_RANKED = re.compile(
    r"@ranked\s+\?(?P<var>\w+)(?:\s+\?(?P<type>\w+))?(?:\s+(?P<term><[^>]+>|\w+:\w+))?"
    r"(?:\s+\?(?P<link>\w+))?"
)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*$", re.IGNORECASE)


def _parse_ranked(name: str, line: str, text: str) -> Ranked:
    """`@ranked ?x [?type] [property]`, checked against the query: it must sort in one of the
    rank index's orders first and end with a LIMIT (what makes running it on the first
    concepts or papers by rank give its rows)."""
    match = _RANKED.fullmatch(line)
    if not match:
        raise ValueError(
            f"{name}.rq: write '@ranked ?concept [?type] [kg:role]' or "
            f"'@ranked ?paper [property]', not {line!r}"
        )
    flat = " ".join(text.split())
    found = [
        order
        for order, keys in ORDERS.items()
        if re.search(re.escape(f"ORDER BY {keys} ?{match['var']}") + r"(?![\w])", flat)
    ]
    if not found:
        wanted = " or ".join(f"'ORDER BY {keys} ?{match['var']} …'" for keys in ORDERS.values())
        raise ValueError(f"{name}.rq: @ranked needs the query to sort by {wanted} first")
    if found[0] == "papers" and match["type"]:
        raise ValueError(f"{name}.rq: papers are ranked without a type: {line!r}")
    link = match["link"]
    if link and (found[0] != "papers" or not match["term"]):
        raise ValueError(f"{name}.rq: only '@ranked ?paper property ?concept' names a concept")
    limit = _LIMIT.search(text.strip())
    if not limit and not link:
        raise ValueError(f"{name}.rq: @ranked needs the query to end with LIMIT n")
    term = match["term"]
    if term and not term.startswith("<"):
        prefix, local = term.split(":", 1)
        if prefix not in PREFIXES:
            raise ValueError(f"{name}.rq: unknown prefix in {term!r} (write <IRI>)")
        term = PREFIXES[prefix] + local
    role = term.strip("<>") if term else None
    return Ranked(
        match["var"], match["type"], int(limit[1]) if limit else None, role, found[0], link
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
    for entry in sorted(resources.files("queries").iterdir(), key=lambda e: e.name):
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


def checked_texts() -> tuple[str, ...]:
    """The text of every named query, each checked by `kg.query.safety.check_query` (never
    SERVICE or FROM); raises its `QueryError` for one that fails. `kg serve` checks them once
    and its query workers `trust` them."""
    texts = tuple(q.text for q in all_queries())
    for text in texts:
        check_query(text)
    return texts


def ranked_paper_properties() -> set[str]:
    """The paper properties `@ranked ?paper <property>` tags name (the rank index keeps them)."""
    return {
        q.ranked.role
        for q in all_queries()
        if q.ranked is not None and q.ranked.order == "papers" and q.ranked.role
        and q.ranked.link is None  # linked to a concept: found from the store, not the index
    }
