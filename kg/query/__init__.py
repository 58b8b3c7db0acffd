"""Run SPARQL on a graph: a file (rdflib or Oxigraph in memory), an Oxigraph store, an endpoint.

The API the CLI, the server and the browser view use:

- `open_source(source, *, store=None, endpoint=None)` opens one of them and returns a `Source`:
  `source.query(sparql, bindings) -> QueryResult` for any query form, and
  `source.select(sparql, bindings) -> list[dict[str, term]]` for SELECT.
  Result terms are pyoxigraph terms (`.value`; literals also `.datatype`, `.language`).
- `run_named(source, name, params)` runs a named query (see `queries`) with string parameter
  values (`{"concept": "diffusion model"}`), checked and converted by the query's header;
  `run_sparql(source, text, params)` runs SPARQL written by hand the same way.

>>> from pathlib import Path

import pyoxigraph as ox
>>> graph = Path(__file__).parents[2] / "tests" / "fixtures" / "query_graph.ttl"
>>> with open_source(graph) as source:
...     rows = run_named(source, "papers-using", {"concept": "Diffusion Models"}).dicts()
>>> [row["paper"].value.rsplit("/", 1)[1] for row in rows]
['p4', 'p3']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pyoxigraph as ox

from kg.errors import InputError, QueryError
from kg.query import named as named_queries
from kg.query.bind import hints, parse_iri, resolve
from kg.query.formats import ResultFormat, default_format, serialize
from kg.query.oxigraph_source import OxigraphSource
from kg.query.remote import EndpointSource
from kg.query.result import QueryResult
from kg.query.sources import RdflibSource, Source
from kg.query.terms import Term, to_term

__all__ = [
    "RDFLIB_MAX_BYTES",
    "QueryResult",
    "ResultFormat",
    "Source",
    "Term",
    "default_format",
    "is_query_name",
    "open_source",
    "run_named",
    "run_sparql",
    "serialize",
    "to_term",
]

_NAME = re.compile(r"[a-z][a-z0-9-]*")
# Above this file size `engine="auto"` loads a graph file into Oxigraph in memory instead of
# rdflib: rdflib takes minutes and gigabytes for a few million triples (docs/QUERIES.md).
RDFLIB_MAX_BYTES = 20_000_000


def open_source(
    source: str | Path | ox.Store | None = None,
    *,
    store: Path | str | None = None,
    endpoint: str | None = None,
    engine: str = "auto",
    timeout: float = 60.0,
) -> Source:
    """Open what queries will run on; give exactly one of `source`, `store` and `endpoint`.

    `source` is a graph file (any RDF format rdflib reads, optionally .gz), an Oxigraph store
    folder, an http(s) URL of a SPARQL endpoint, or an open pyoxigraph `Store`. For files,
    `engine` is `rdflib`, `oxigraph` (in memory) or `auto` (rdflib up to `RDFLIB_MAX_BYTES`).
    `timeout` applies to endpoints. Raises `InputError`, `StoreError` or `QueryError`.
    """
    given = [x for x in (source, store, endpoint) if x is not None]
    if len(given) != 1:
        raise QueryError("give exactly one of a graph file, --store DIR or --endpoint URL")
    if endpoint is not None or (
        isinstance(source, str) and source.startswith(("http://", "https://"))
    ):
        return EndpointSource(str(endpoint or source), timeout=timeout)
    if store is not None:
        return OxigraphSource.open_dir(Path(store))
    if isinstance(source, ox.Store):
        return OxigraphSource(source, "a pyoxigraph Store")
    path = Path(str(source))
    if path.is_dir():
        return OxigraphSource.open_dir(path)
    if not path.is_file():
        raise InputError("no such graph file or store folder", source=str(path))
    if engine not in ("auto", "rdflib", "oxigraph"):
        raise QueryError(f"unknown engine {engine!r}: use auto, rdflib or oxigraph")
    if engine == "oxigraph" or (engine == "auto" and path.stat().st_size > RDFLIB_MAX_BYTES):
        return OxigraphSource.from_file(path)
    return RdflibSource.from_file(path)


def is_query_name(text: str) -> bool:
    """True when `text` looks like the name of a named query rather than SPARQL."""
    return _NAME.fullmatch(text.strip()) is not None


def run_sparql(
    source: Source,
    sparql: str,
    params: Mapping[str, str] | None = None,
    *,
    limit: int | None = None,
) -> QueryResult:
    """Run SPARQL text written by hand: each `params` entry binds ?NAME to the string VALUE,
    or to an IRI when VALUE is written `<…>`."""
    bindings = {
        name: parse_iri(value, where=f"--param {name}") if value.startswith("<") else value
        for name, value in (params or {}).items()
    }
    return source.query(sparql, bindings, limit=limit)


def run_named(
    source: Source, name: str, params: Mapping[str, str] | None = None, *, limit: int | None = None
) -> QueryResult:
    """Run the named query `name` with string parameter values; see `queries` for the names."""
    named = named_queries.get(name)
    values = dict(params or {})
    return source.query(named.text, resolve(named, values), limit=limit, hints=hints(named, values))
