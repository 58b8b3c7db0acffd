"""Where queries run: the `Source` interface, an rdflib graph in memory (here), an Oxigraph
store on disk or in memory (`kg.query.oxigraph_source`).

Every source answers `query(sparql, bindings)` with a `QueryResult` of pyoxigraph terms.
Bindings are never pasted into the text: rdflib gets them as `initBindings`; Oxigraph gets a
one-row `VALUES` block of terms serialised by pyoxigraph at the start of every group pattern
(see `sparql_text`). Both bind the variable throughout the query, so a query means the same on
every engine.
"""

from __future__ import annotations

import gzip
import itertools
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import pyoxigraph as ox

from kg.errors import InputError, KGError, QueryError
from kg.query.result import QueryResult
from kg.query.safety import check_query, located, lock_down_rdflib, parse_error
from kg.query.sparql_text import (
    inject_values,
    line_column,
    query_form,
    undeclared_prefix,
)
from kg.query.terms import Term, from_rdflib, to_rdflib, to_term, triple_from_rdflib

if TYPE_CHECKING:
    from kg.query.bind import Hints

Bindings = Mapping[str, Any]

# File suffix -> (pyoxigraph format or None, rdflib format). rdflib reads every one of them.
RDF_SUFFIXES: dict[str, tuple[ox.RdfFormat | None, str]] = {
    ".ttl": (ox.RdfFormat.TURTLE, "turtle"),
    ".turtle": (ox.RdfFormat.TURTLE, "turtle"),
    ".nt": (ox.RdfFormat.N_TRIPLES, "nt"),
    ".ntriples": (ox.RdfFormat.N_TRIPLES, "nt"),
    ".nq": (ox.RdfFormat.N_QUADS, "nquads"),
    ".nquads": (ox.RdfFormat.N_QUADS, "nquads"),
    ".trig": (ox.RdfFormat.TRIG, "trig"),
    ".n3": (ox.RdfFormat.N3, "n3"),
    ".rdf": (ox.RdfFormat.RDF_XML, "xml"),
    ".owl": (ox.RdfFormat.RDF_XML, "xml"),
    ".xml": (ox.RdfFormat.RDF_XML, "xml"),
    ".jsonld": (ox.RdfFormat.JSON_LD, "json-ld"),
    ".json": (ox.RdfFormat.JSON_LD, "json-ld"),
    ".trix": (None, "trix"),
    ".hext": (None, "hext"),
}


def rdf_format(path: Path) -> tuple[ox.RdfFormat | None, str, bool]:
    """(pyoxigraph format, rdflib format, gzipped) of a graph file, from its name."""
    name = path.name.lower()
    gzipped = name.endswith(".gz")
    suffix = Path(name.removesuffix(".gz")).suffix
    if suffix not in RDF_SUFFIXES:
        known = ", ".join(sorted(RDF_SUFFIXES))
        raise InputError(
            f"cannot tell the RDF format from the file name (known suffixes: {known}, "
            "optionally + .gz)",
            source=str(path),
        )
    ox_format, rdflib_format = RDF_SUFFIXES[suffix]
    return ox_format, rdflib_format, gzipped


def open_binary(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed when it ends in .gz."""
    if not path.is_file():
        raise InputError("no such graph file", source=str(path))
    if path.name.lower().endswith(".gz"):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


class Source(ABC):
    """Something SPARQL queries run on. Use as a context manager or call `close()`."""

    description: str = ""

    @abstractmethod
    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        """Run a query; `bindings` maps variable names to values (str, int, or RDF terms).

        `limit` caps the rows (or triples) read; the result says whether it cut anything.
        `hints` (from a named query's header) let a source with indexes pre-bind variables to
        candidates; the result is the same without them. Raises `QueryError` (syntax error
        with its position, bad binding) or `StoreError`.
        """

    def select(self, sparql: str, bindings: Bindings | None = None) -> list[dict[str, Term]]:
        """The rows of a SELECT query as `{variable: term}` dicts."""
        result = self.query(sparql, bindings)
        if result.form != "SELECT":
            raise QueryError(f"select() needs a SELECT query, got {result.form}")
        return result.dicts()

    def close(self) -> None:
        """Release the store or connection (a no-op for in-memory graphs)."""
        return None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}>"


def _terms(bindings: Bindings | None) -> dict[str, Term]:
    return {name: to_term(value) for name, value in (bindings or {}).items()}


def bind_values(sparql: str, terms: Mapping[str, Term]) -> str:
    """The query with `VALUES` blocks binding `terms`, each written by pyoxigraph."""
    names = sorted(terms)
    return inject_values(sparql, names, [[str(terms[name]) for name in names]])


def take(items: Iterable[Any], limit: int | None) -> tuple[list[Any], bool]:
    """At most `limit` items, and whether there were more."""
    if limit is None:
        return list(items), False
    head = list(itertools.islice(items, limit + 1))
    return head[:limit], len(head) > limit


_OX_POSITION = re.compile(r"^error at (\d+):(\d+): ")


def syntax_error(message: str, sparql: str) -> QueryError:
    """A `QueryError` for an Oxigraph syntax error: line, column, the message, the line."""
    undeclared = undeclared_prefix(sparql)
    if undeclared is not None:
        line, column = line_column(sparql, undeclared.start)
        prefix = undeclared.text.split(":", 1)[0]
        return located(
            line, column, f"undeclared prefix '{prefix}:' (add PREFIX {prefix}: <…>)", sparql
        )
    match = _OX_POSITION.match(message)
    if not match:
        return QueryError(f"SPARQL syntax error: {message}")
    line, column = int(match[1]), int(match[2])
    return located(line, column, message[match.end() :], sparql)


def _rdflib_to_ntriples(data: IO[bytes], rdflib_format: str) -> bytes:
    import rdflib

    graph = rdflib.Dataset(default_union=True)
    graph.parse(data, format=rdflib_format)
    return graph.serialize(format="nt", encoding="utf-8")


class RdflibSource(Source):
    """An rdflib graph in memory: the simple choice for small graphs."""

    def __init__(self, graph: Any, description: str):
        self.graph = graph
        self.description = description

    @classmethod
    def from_file(cls, path: Path) -> RdflibSource:
        """Parse the graph file `path` (any RDF format rdflib reads, optionally gzipped)."""
        import rdflib

        _, rdflib_format, _ = rdf_format(path)
        quads = rdflib_format in ("nquads", "trig", "trix")
        graph: Any = rdflib.Dataset(default_union=True) if quads else rdflib.Graph()
        with open_binary(path) as data:
            try:
                graph.parse(data, format=rdflib_format)
            except Exception as exc:
                # rdflib's parsers raise types of their own (BadSyntax, SAXParseException, ...).
                raise InputError(f"not valid RDF: {exc}", source=str(path)) from exc
        return cls(graph, f"{path} (rdflib, in memory)")

    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        from rdflib.plugins.sparql import prepareQuery
        from rdflib.term import Variable

        form = query_form(sparql)
        check_query(sparql)  # never SERVICE or FROM; and nothing runs before this check
        if undeclared_prefix(sparql) is not None:  # rdflib would quietly use its own prefixes
            raise parse_error(QueryError("undeclared prefix"), sparql)
        lock_down_rdflib()
        try:
            prepared = prepareQuery(sparql)
        except Exception as exc:
            raise _rdflib_syntax_error(exc, sparql) from exc
        init = {Variable(name): to_rdflib(term) for name, term in _terms(bindings).items()}
        try:
            return _rdflib_result(self.graph.query(prepared, initBindings=init), form, limit)
        except KGError:
            raise
        except Exception as exc:
            # rdflib raises plain Exception for what it cannot evaluate (an unknown function,
            # GRAPH on a graph without named graphs, ...): the query's fault, not a crash.
            raise QueryError(f"SPARQL error: rdflib cannot evaluate this query: {exc}") from exc


def _rdflib_result(answer: Any, form: str, limit: int | None) -> QueryResult:
    if form == "ASK":
        return QueryResult(form, boolean=bool(answer.askAnswer))
    if form == "SELECT":
        variables = tuple(str(v) for v in answer.vars or ())
        rows, truncated = take(answer, limit)
        converted = [
            tuple(None if term is None else from_rdflib(term) for term in row) for row in rows
        ]
        return QueryResult(form, variables, converted, truncated=truncated)
    triples, truncated = take(answer, limit)
    return QueryResult(
        form,
        triples=[triple_from_rdflib(triple) for triple in triples],
        truncated=truncated,
    )


def _rdflib_syntax_error(exc: Exception, sparql: str) -> QueryError:
    """rdflib reports syntax errors with pyparsing exceptions, others as plain `Exception`."""
    from pyparsing import ParseBaseException

    if isinstance(exc, ParseBaseException) or undeclared_prefix(sparql) is not None:
        return parse_error(exc, sparql)
    return QueryError(f"SPARQL error: {exc}")
