"""Where queries run: the `Source` interface, an rdflib graph in memory (here), an Oxigraph
store on disk or in memory (`kg.query.oxigraph_source`).

Every source answers `query(sparql, bindings)` with a `QueryResult` of pyoxigraph terms.
Bindings are never pasted into the text: rdflib gets them as `initBindings`; Oxigraph gets a
one-row `VALUES` block of terms serialised by pyoxigraph at the start of every group pattern
(see `sparql_text`). Both bind the variable throughout the query, so a query means the same on
every engine.
"""

from __future__ import annotations

import functools
import itertools
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import KGError, QueryError
from kg.query.result import QueryResult
from kg.query.safety import (
    checked_tree,
    located,
    lock_down_rdflib,
    parse_error,
    undeclared_prefix_error,
)
from kg.query.sparql_text import (
    inject_values,
    query_form,
    undeclared_prefix,
)
from kg.query.terms import Term, to_term
from kg.rdf.io import read_rdflib
from kg.rdf.rdflib_io import term_from_rdflib, term_to_rdflib, triple_from_rdflib

if TYPE_CHECKING:
    from kg.query.bind import Hints

Bindings = Mapping[str, Any]

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


def bound_terms(bindings: Bindings | None) -> dict[str, Term]:
    """Binding values as pyoxigraph terms (see `kg.query.terms.to_term`)."""
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
    undeclared = undeclared_prefix_error(sparql)
    if undeclared is not None:
        return undeclared
    match = _OX_POSITION.match(message)
    if not match:
        return QueryError(f"SPARQL syntax error: {message}")
    line, column = int(match[1]), int(match[2])
    return located(line, column, message[match.end() :], sparql)


class RdflibSource(Source):
    """An rdflib graph in memory: the simple choice for small graphs."""

    def __init__(self, graph: Any, description: str):
        self.graph = graph
        self.description = description

    @classmethod
    def from_file(cls, path: Path) -> RdflibSource:
        """Parse the graph file `path` (any RDF format rdflib reads, optionally gzipped)."""
        return cls(read_rdflib(path), f"{path} (rdflib, in memory)")

    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        from rdflib.term import Variable

        form = query_form(sparql)
        if undeclared_prefix(sparql) is not None:  # rdflib would quietly use its own prefixes
            raise parse_error(QueryError("undeclared prefix"), sparql)
        prepared = _prepared(sparql)  # checked first: never SERVICE or FROM
        lock_down_rdflib()
        terms = bound_terms(bindings)
        init = {Variable(name): term_to_rdflib(term) for name, term in terms.items()}
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
            tuple(None if term is None else term_from_rdflib(term) for term in row)
            for row in rows
        ]
        return QueryResult(form, variables, converted, truncated=truncated)
    triples, truncated = take(answer, limit)
    return QueryResult(
        form,
        triples=[triple_from_rdflib(triple) for triple in triples],
        truncated=truncated,
    )


@functools.lru_cache(maxsize=256)
def _prepared(sparql: str) -> Any:
    """rdflib's prepared query, from one parse that `kg.query.safety` checks first (rdflib's
    `prepareQuery` without a second parse); cached, as named queries repeat their text."""
    from rdflib.plugins.sparql.algebra import translateQuery

    tree = checked_tree(sparql)
    try:
        prepared = translateQuery(tree)
    except Exception as exc:
        raise _rdflib_syntax_error(exc, sparql) from exc
    prepared._original_args = (sparql, {}, None)  # as prepareQuery leaves it
    return prepared


def _rdflib_syntax_error(exc: Exception, sparql: str) -> QueryError:
    """rdflib reports syntax errors with pyparsing exceptions, others as plain `Exception`."""
    from pyparsing import ParseBaseException

    if isinstance(exc, ParseBaseException) or undeclared_prefix(sparql) is not None:
        return parse_error(exc, sparql)
    return QueryError(f"SPARQL error: {exc}")
