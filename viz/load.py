"""Read a paperkg graph (docs/VOCABULARY.md) into a networkx graph for the browser view.

The skeleton — papers, concepts, links — is read for the whole graph; the heavier details
(abstracts, authors, evidence sentences) only for the nodes a view draws (`load_details`).
Parsing and queries use pyoxigraph (an order of magnitude faster than rdflib, STACK_NOTES).

Graph model (`nx.DiGraph`, node ids are IRIs):

- paper nodes: ``kind="paper"``, ``label`` (title, else the start of the abstract, else the id),
  ``title``, ``pid``, ``url``, ``year``, ``venue``, ``count`` (its number of concepts);
- concept nodes: ``kind="concept"``, ``label``, ``ctype`` (``Model`` … ``Concept``),
  ``aliases`` (sorted altLabels), ``count`` (``kg:paperCount``, else its linked papers);
- edges paper → concept: ``role`` (the strongest role property; ``hasKeyword`` when the link
  only comes from author keywords; ``mentions`` otherwise) and ``keyword`` (has ``kg:hasKeyword``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from kg.errors import InputError
from kg.namespaces import KG_IRI, PREFIXES, SCHEMA_IRI
from kg.rdf.io import GraphSource, open_graph
from viz.style import ROLE_ORDER, TYPE_ORDER

if TYPE_CHECKING:
    import networkx as nx

_PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
_CONCEPT_TYPES = " ".join(f"kg:{t}" for t in TYPE_ORDER if t != "Paper")
_ROLE_VALUES = " ".join(f"kg:{r}" for r in ROLE_ORDER)
_TYPE_RANK = {t: i for i, t in enumerate(TYPE_ORDER)}
_ROLE_RANK = {r: i for i, r in enumerate(ROLE_ORDER)}
#: Characters of the abstract kept for the label of an untitled paper and for the page.
SNIPPET_CHARS = 600

Q_PAPERS = _PREFIXES + f"""
SELECT ?p ?id ?title ?snippet ?url ?year ?venue WHERE {{
  ?p a schema:ScholarlyArticle .
  OPTIONAL {{ ?p dcterms:identifier ?id }}
  OPTIONAL {{ ?p dcterms:title ?title }}
  OPTIONAL {{ ?p dcterms:abstract ?abstract
             BIND(SUBSTR(?abstract, 1, {SNIPPET_CHARS}) AS ?snippet) }}
  OPTIONAL {{ ?p schema:url ?url }}
  OPTIONAL {{ ?p schema:datePublished ?year }}
  OPTIONAL {{ ?p kg:venue ?venue }}
}}"""

Q_CONCEPTS = _PREFIXES + f"""
SELECT ?c ?type ?label ?rdfsLabel ?count WHERE {{
  ?c a skos:Concept .
  OPTIONAL {{ VALUES ?type {{ {_CONCEPT_TYPES} }} ?c a ?type }}
  OPTIONAL {{ ?c skos:prefLabel ?label }}
  OPTIONAL {{ ?c rdfs:label ?rdfsLabel }}
  OPTIONAL {{ ?c kg:paperCount ?count }}
}}"""

Q_ALIASES = _PREFIXES + "SELECT ?c ?alias WHERE { ?c a skos:Concept ; skos:altLabel ?alias }"

Q_LINKS = _PREFIXES + f"""
SELECT ?p ?role ?c WHERE {{ VALUES ?role {{ {_ROLE_VALUES} }} ?p ?role ?c }}"""


def open_store(source: GraphSource) -> ox.Store:
    """A pyoxigraph store holding `source` (see `kg.rdf.io.GraphSource`): a file is loaded into
    memory, a store folder opened read-only through the store's recovery path.

    >>> open_store([ox.Triple(ox.NamedNode("http://a"), ox.NamedNode("http://b"),
    ...                       ox.Literal("c"))]).query("ASK { ?s ?p 'c' }")
    <QueryBoolean true>
    """
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        raise InputError("kg viz reads a graph file or store directory, not a SPARQL endpoint; "
                         "export the graph to Turtle first", source=source)
    return open_graph(source)


def select(store: ox.Store, sparql: str) -> Iterator[dict[str, Any]]:
    """Rows of a SELECT query as dicts of plain values (IRIs and strings as `str`, integers as
    `int`), over the union of all graphs."""
    solutions = store.query(sparql, use_default_graph_as_union=True)
    if not isinstance(solutions, ox.QuerySolutions):
        raise TypeError(f"not a SELECT query: {sparql[:80]!r}")
    names = [var.value for var in solutions.variables]
    for solution in solutions:
        yield {name: _plain(term) for name, term in zip(names, solution, strict=True) if term}


def _plain(term: Any) -> str | int:
    if isinstance(term, ox.Literal) and term.datatype.value.endswith(("#integer", "#int")):
        try:
            return int(term.value)
        except ValueError:
            return term.value
    return str(term.value)


def load_graph(store: ox.Store) -> nx.DiGraph:
    """The paper-concept skeleton of the whole graph (see the module docstring)."""
    import networkx as nx

    graph: nx.DiGraph = nx.DiGraph()
    papers: dict[str, dict[str, Any]] = {}
    for row in select(store, Q_PAPERS):
        attrs = papers.setdefault(row["p"], {"kind": "paper"})
        for key, name in (("id", "pid"), ("title", "title"), ("snippet", "snippet"),
                          ("url", "url"), ("year", "year"), ("venue", "venue")):
            # Several values (two URLs, say): keep the smallest, so the page is deterministic.
            if key in row and (name not in attrs or str(row[key]) < str(attrs[name])):
                attrs[name] = str(row[key])
    for iri in sorted(papers):
        attrs = papers[iri]
        attrs["label"] = paper_label(attrs, iri)
        graph.add_node(iri, **attrs)

    concepts: dict[str, dict[str, Any]] = {}
    for row in select(store, Q_CONCEPTS):
        attrs = concepts.setdefault(row["c"], {"kind": "concept", "aliases": set()})
        ctype = str(row.get("type", KG_IRI + "Concept")).removeprefix(KG_IRI)
        if "ctype" not in attrs or _TYPE_RANK[ctype] < _TYPE_RANK[attrs["ctype"]]:
            attrs["ctype"] = ctype
        label = row.get("label") or row.get("rdfsLabel")
        if label is not None and ("label" not in attrs or str(label) < attrs["label"]):
            attrs["label"] = str(label)
        if isinstance(row.get("count"), int):
            attrs["count"] = row["count"]
    for row in select(store, Q_ALIASES):
        if row["c"] in concepts:
            concepts[row["c"]]["aliases"].add(str(row["alias"]))
    for iri in sorted(concepts):
        attrs = concepts[iri]
        if iri in papers:
            continue
        attrs.setdefault("label", iri.rsplit("/", 1)[-1])
        attrs["aliases"] = distinct_aliases(attrs["label"], attrs["aliases"])
        graph.add_node(iri, **attrs)

    roles: dict[tuple[str, str], set[str]] = {}
    for row in select(store, Q_LINKS):
        p, c = row["p"], row["c"]
        if p in papers and c in concepts:
            roles.setdefault((p, c), set()).add(str(row["role"]).removeprefix(KG_IRI))
    for (p, c) in sorted(roles):
        found = roles[(p, c)]
        graph.add_edge(p, c, role=strongest_role(found), keyword="hasKeyword" in found)

    for node, attrs in graph.nodes(data=True):
        if "count" not in attrs:
            attrs["count"] = graph.degree(node)
    return graph


def distinct_aliases(label: str, aliases: Iterable[str]) -> tuple[str, ...]:
    """Aliases that differ from the label and each other other than by case (sorted; of a
    case-insensitive group the first in sort order stays).

    >>> distinct_aliases("large language model", ["LLMs", "Large language model", "LLM",
    ...                                           "large language models", "Large language models"])
    ('LLM', 'LLMs', 'Large language models')
    """
    seen = {label.casefold()}
    kept = []
    for alias in sorted(aliases):
        if alias.casefold() not in seen:
            seen.add(alias.casefold())
            kept.append(alias)
    return tuple(kept)


def strongest_role(found: Iterable[str]) -> str:
    """The role an edge is drawn with: the strongest text role, else `hasKeyword`, else
    `mentions`.

    >>> strongest_role({"mentions", "uses", "proposes"}), strongest_role({"mentions", "hasKeyword"})
    ('proposes', 'hasKeyword')
    """
    return min(found, key=lambda r: _ROLE_RANK.get(r, len(_ROLE_RANK)), default="mentions")


def paper_label(attrs: dict[str, Any], iri: str) -> str:
    """A paper's name: its title, else the first words of its abstract, else its id."""
    if attrs.get("title"):
        return str(attrs["title"])
    snippet = str(attrs.get("snippet", "")).strip()
    if snippet:
        words = snippet.split()
        return " ".join(words[:8]) + (" …" if len(words) > 8 else "")
    return str(attrs.get("pid") or iri.rsplit("/", 1)[-1])


@dataclass(frozen=True, slots=True)
class Evidence:
    """One mention supporting a link: the sentence (or the bare mention) and where it is."""

    text: str
    field: str
    start: int | None
    context: str
    mark_start: int
    mark_end: int


@dataclass(slots=True)
class Details:
    """What only drawn nodes need: authors, code links and the evidence of each link."""

    authors: dict[str, str] = field(default_factory=dict)
    code: dict[str, str] = field(default_factory=dict)
    evidence: dict[tuple[str, str], list[Evidence]] = field(default_factory=dict)


def load_details(store: ox.Store, papers: Iterable[str]) -> Details:
    """Authors, code links and evidence (sorted by field and offset) of `papers`.

    Read by index lookups from each paper (`?e kg:paper <paper>`, then the evidence's and its
    sentence's own triples), so the cost follows the papers drawn, not the size of the graph:
    Oxigraph evaluates a `VALUES`-restricted evidence query as a scan of all evidence.
    """
    def props(subject: ox.NamedNode) -> dict[str, str | int]:
        found: dict[str, str | int] = {}
        for quad in store.quads_for_pattern(subject, None, None, None):
            name = quad.predicate.value
            if name not in found or str(_plain(quad.object)) < str(found[name]):
                found[name] = _plain(quad.object)
        return found

    details = Details()
    evidence_of = ox.NamedNode(KG_IRI + "paper")
    for paper in sorted(set(papers)):
        node = ox.NamedNode(paper)
        own = props(node)
        if KG_IRI + "authorList" in own:
            details.authors[paper] = str(own[KG_IRI + "authorList"])
        if SCHEMA_IRI + "codeRepository" in own:
            details.code[paper] = str(own[SCHEMA_IRI + "codeRepository"])
        for quad in store.quads_for_pattern(None, evidence_of, node, None):
            if not isinstance(quad.subject, ox.NamedNode):
                continue
            ev = props(quad.subject)
            concept, text = ev.get(KG_IRI + "concept"), ev.get(KG_IRI + "text")
            if concept is None or text is None:
                continue
            row: dict[str, Any] = {"text": text, "field": ev.get(KG_IRI + "field", ""),
                                   "start": ev.get(KG_IRI + "start"), "end": ev.get(KG_IRI + "end")}
            sentence = ev.get(KG_IRI + "inSentence")
            if isinstance(sentence, str):
                sent = props(ox.NamedNode(sentence))
                row["sentence"] = sent.get(KG_IRI + "text")
                row["sentenceStart"] = sent.get(KG_IRI + "start")
            details.evidence.setdefault((paper, str(concept)), []).append(_evidence(row))
    for items in details.evidence.values():
        items.sort(key=lambda e: (e.field != "title", e.field, e.start or 0, e.text))
    return details


def _evidence(row: dict[str, Any]) -> Evidence:
    text = str(row["text"])
    start = row.get("start") if isinstance(row.get("start"), int) else None
    sentence = row.get("sentence")
    offset = row.get("sentenceStart")
    if isinstance(sentence, str) and isinstance(start, int) and isinstance(offset, int):
        at = start - offset
        if sentence[at:at + len(text)] == text:
            return Evidence(text, str(row.get("field", "")), start, sentence, at, at + len(text))
        # Offsets that disagree with the sentence: find the mention rather than mark garbage.
        found = sentence.find(text)
        if found >= 0:
            return Evidence(text, str(row.get("field", "")), start, sentence, found,
                            found + len(text))
    return Evidence(text, str(row.get("field", "")), start, text, 0, len(text))


