"""A summary of a built graph: papers, concepts by type, links by role, evidence, top concepts.

Counted with SPARQL over an in-memory pyoxigraph store (fast); the top concepts come from the
materialised `kg:paperCount`, so no aggregation over all links is needed.

>>> from kg.rdf import build_triples
>>> from kg.rdf.sample import sample_corpus
>>> stats = graph_stats(build_triples(sample_corpus()))
>>> stats.papers, stats.concepts["Model"], stats.links["proposes"], stats.top_concepts[0].label
(3, 2, 1, 'large language model')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from os import PathLike

from pyoxigraph import Literal, NamedNode, QuerySolutions, Store, Triple

from kg.namespaces import PREFIXES
from kg.rdf.io import open_graph
from kg.types import ConceptType, Role

_TYPES = ", ".join(f"kg:{t.value}" for t in ConceptType)
_ROLES = [r for r in Role if r is not Role.MENTIONS]
_ROLE_LIST = ", ".join(f"kg:{r.value}" for r in _ROLES)

_QUERIES = {
    "papers": "SELECT (COUNT(?p) AS ?n) WHERE { ?p a schema:ScholarlyArticle }",
    "evidence": "SELECT (COUNT(?e) AS ?n) WHERE { ?e a kg:Evidence }",
    "links": "SELECT (COUNT(*) AS ?n) WHERE { ?p kg:mentions ?c }",
    "keyword_links": "SELECT (COUNT(*) AS ?n) WHERE { ?p kg:hasKeyword ?c }",
    "concepts": f"""SELECT ?key (COUNT(?c) AS ?n) WHERE {{
        ?c a skos:Concept, ?key . FILTER (?key IN ({_TYPES}))
    }} GROUP BY ?key""",
    "roles": f"""SELECT ?key (COUNT(*) AS ?n) WHERE {{
        ?p ?key ?c . FILTER (?key IN ({_ROLE_LIST}))
    }} GROUP BY ?key""",
    "top": f"""SELECT ?c ?label ?type ?n WHERE {{
        ?c kg:paperCount ?n ; skos:prefLabel ?label ; a ?type . FILTER (?type IN ({_TYPES}))
    }} ORDER BY DESC(?n) ?label ?c""",
}


@dataclass(frozen=True, slots=True)
class TopConcept:
    """One concept of the ranking: its IRI, label, type local name and paper count."""

    iri: str
    label: str
    ctype: str
    papers: int


@dataclass(frozen=True, slots=True)
class GraphStats:
    """Counts of one graph. `links` is by role (local name), `"mentions"` = no role property."""

    triples: int
    papers: int
    concepts: dict[str, int]
    links: dict[str, int]
    keyword_links: int
    evidence: int
    top_concepts: tuple[TopConcept, ...]

    @property
    def total_concepts(self) -> int:
        return sum(self.concepts.values())

    @property
    def total_links(self) -> int:
        return sum(self.links.values())


def graph_stats(graph: Store | str | PathLike[str] | Iterable[Triple], top: int = 10) -> GraphStats:
    """Count a graph given as a store, an RDF file (any format, `.gz` too) or triples."""
    store = open_graph(graph)

    def rows(name: str) -> QuerySolutions:
        result = store.query(_QUERIES[name], prefixes=PREFIXES, use_default_graph_as_union=True)
        assert isinstance(result, QuerySolutions)
        return result

    def count(name: str) -> int:
        return sum(_int(row["n"]) for row in rows(name))

    def grouped(name: str) -> dict[str, int]:
        return {_local(row["key"]): _int(row["n"]) for row in rows(name)}

    by_type = grouped("concepts")
    by_role = grouped("roles")
    links = {r.value: by_role.get(r.value, 0) for r in _ROLES}
    # The contract gives a link at most one role property; the rest name it only in passing.
    links[Role.MENTIONS.value] = count("links") - sum(links.values())
    top_concepts = tuple(
        TopConcept(
            iri=_value(row["c"]),
            label=_value(row["label"]),
            ctype=_local(row["type"]),
            papers=_int(row["n"]),
        )
        for row in islice(rows("top"), max(top, 0))
    )
    return GraphStats(
        triples=len(store),
        papers=count("papers"),
        concepts={t.value: by_type.get(t.value, 0) for t in ConceptType},
        links=links,
        keyword_links=count("keyword_links"),
        evidence=count("evidence"),
        top_concepts=top_concepts,
    )


def format_stats(stats: GraphStats) -> str:
    """The summary as an aligned plain-text table."""
    rows: list[tuple[str, int]] = [("papers", stats.papers), ("concepts", stats.total_concepts)]
    rows += [(f"  {name}", n) for name, n in stats.concepts.items()]
    rows.append(("links", stats.total_links))
    rows += [
        (f"  {'mentions only' if name == Role.MENTIONS.value else name}", n)
        for name, n in stats.links.items()
    ]
    rows += [
        ("keyword links", stats.keyword_links),
        ("evidence", stats.evidence),
        ("triples", stats.triples),
    ]
    lines = _aligned([(name, "", n) for name, n in rows])
    if stats.top_concepts:
        lines += ["", f"top {len(stats.top_concepts)} concepts by paper count"]
        lines += _aligned([(f"  {_cell(c.label)}", c.ctype, c.papers) for c in stats.top_concepts])
    return "\n".join(lines) + "\n"


def _aligned(rows: list[tuple[str, str, int]]) -> list[str]:
    left = max(len(name) for name, _, _ in rows)
    mid = max(len(kind) for _, kind, _ in rows)
    right = max(len(f"{n:,}") for _, _, n in rows)
    middle = (lambda kind: f"  {kind:<{mid}}") if mid else (lambda kind: "")
    return [f"{name:<{left}}{middle(kind)}  {n:>{right},}" for name, kind, n in rows]


_SPACE = re.compile(r"\s+")


def _cell(label: str, width: int = 48) -> str:
    """A label fit for one table cell: whitespace collapsed, long labels shortened."""
    text = _SPACE.sub(" ", label).strip()
    return text if len(text) <= width else text[: width - 1] + "…"


def _value(term: object) -> str:
    assert isinstance(term, NamedNode | Literal)
    return term.value


def _local(term: object) -> str:
    return _value(term).rpartition("#")[2]


def _int(term: object) -> int:
    return int(_value(term))
