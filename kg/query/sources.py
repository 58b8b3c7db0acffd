"""Where queries run: an rdflib graph in memory, or an Oxigraph store (on disk or in memory).

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

from kg.errors import InputError, QueryError, StoreError
from kg.query.result import QueryResult
from kg.query.sparql_text import (
    inject_candidates,
    inject_values,
    line_column,
    query_form,
    undeclared_prefix,
)
from kg.query.terms import Term, from_rdflib, to_rdflib, to_term, triple_from_rdflib

if TYPE_CHECKING:
    from kg.query.bind import Hints
    from kg.query.ranks import RankIndex

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
        return _located(
            line, column, f"undeclared prefix '{prefix}:' (add PREFIX {prefix}: <…>)", sparql
        )
    match = _OX_POSITION.match(message)
    if not match:
        return QueryError(f"SPARQL syntax error: {message}")
    line, column = int(match[1]), int(match[2])
    return _located(line, column, message[match.end() :], sparql)


def _located(line: int, column: int, message: str, sparql: str) -> QueryError:
    lines = sparql.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    pointer = " " * max(column - 1, 0) + "^"
    return QueryError(
        f"SPARQL syntax error at line {line}, column {column}: {message}\n  {text}\n  {pointer}"
    )


def check_syntax(sparql: str) -> None:
    """Raise `QueryError` with line, column and message if Oxigraph's parser rejects the query.

    Gives rdflib sources the same clear messages as Oxigraph ones. The query is parsed and
    planned against an empty in-memory store and never iterated.
    """
    try:
        ox.Store().query(sparql)
    except SyntaxError as exc:
        raise syntax_error(str(exc), sparql) from exc


class OxigraphSource(Source):
    """An Oxigraph store: on disk (opened read-only, so other readers and a loader may share
    it) or in memory (loaded from a file).

    With the store's indexes, named queries' hints pre-bind variables to candidates: a label
    parameter to the concepts the label index finds, a `contains` parameter to the concepts
    whose labels hold the text, and a `@ranked` query runs on the first concepts in rank order
    (its LIMIT of them, then `growth` times more each time it has fewer rows than its LIMIT,
    and over `max_candidates` on every concept).
    """

    growth = 4
    max_candidates = 20_000

    def __init__(self, store: ox.Store, description: str, ranks: RankIndex | None = None):
        from kg.query.labels import data_graphs, has_label_index

        self.store = store
        self.description = description
        self.indexed = has_label_index(store)
        self.graphs = data_graphs(store)
        self.ranks = ranks
        self.first_batch: int | None = None  # tests: start ranked runs this small

    @classmethod
    def open_dir(cls, path: Path) -> OxigraphSource:
        """The store in folder `path` (made by `kg load --store` or `kg build --store`)."""
        from kg.query.ranks import RANK_FILE, RankIndex
        from kg.store import open_read_only

        source = cls(open_read_only(path), f"{path} (Oxigraph store)", RankIndex.open(path))
        if source.ranks is None and (path / RANK_FILE).is_file():
            source.indexed = False  # another tool wrote to the store: its label index is old
        return source

    @classmethod
    def from_file(cls, path: Path) -> OxigraphSource:
        """A fresh in-memory store holding the graph file `path`, with its indexes."""
        from kg.query.labels import build_label_index, data_graphs
        from kg.query.ranks import RankIndex

        store = ox.Store()
        ox_format, rdflib_format, _ = rdf_format(path)
        with open_binary(path) as data:
            try:
                if ox_format is None:
                    store.load(_rdflib_to_ntriples(data, rdflib_format), ox.RdfFormat.N_TRIPLES)
                else:
                    store.load(data, ox_format)
            except SyntaxError as exc:
                raise InputError(f"not valid RDF: {exc}", source=str(path)) from exc
        build_label_index(store)
        ranks = RankIndex.build(store, data_graphs(store))
        return cls(store, f"{path} (Oxigraph, in memory)", ranks)

    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        form = query_form(sparql)
        terms = _terms(bindings)
        candidates = self._candidates(terms, hints) if hints is not None else {}
        ranked = hints.ranked if hints is not None else None
        usable = ranked is not None and self.ranks is not None and self.ranks.usable[ranked.order]
        try:
            # A label narrows the query more than any walk: the walk is for the rest.
            if hints is not None and usable and not candidates:
                return self._run_ranked(sparql, form, terms, hints).cut(limit)
            return _oxigraph_result(self._run(sparql, terms, candidates), form, limit)
        except OSError as exc:
            raise StoreError(f"{self.description}: the store failed: {exc}") from exc

    def _candidates(self, terms: Mapping[str, Term], hints: Hints) -> dict[str, list[str]]:
        """Variable -> the terms it may take, from the indexes (only variables they cover)."""
        from kg.query.labels import candidates

        found: dict[str, list[str]] = {}
        if self.indexed:
            for variable, label in hints.labels.items():
                found[variable] = [str(node) for node in candidates(self.store, label)]
        ranked = hints.ranked.variable if hints.ranked is not None else None
        if self.ranks is not None and self.ranks.usable["concepts"]:
            for variable, text in hints.contains.items():
                if variable != ranked and variable not in found:
                    found[variable] = _iris(self.ranks.ranked(None, contains=text))
        return found

    def _run_ranked(
        self,
        sparql: str,
        form: str,
        terms: Mapping[str, Term],
        hints: Hints,
    ) -> QueryResult:
        """Run on the first concepts (or papers) by rank, more until the query has its LIMIT of
        rows: its rows come in rank order, so those are its first rows over all of them."""
        assert self.ranks is not None and hints.ranked is not None
        ranks, ranked = self.ranks, hints.ranked
        type_term = terms.get(ranked.type_variable) if ranked.type_variable else None
        type_iri = type_term.value if isinstance(type_term, ox.NamedNode) else None
        contains = hints.contains.get(ranked.variable)

        def first(wanted: int | None) -> list[str]:
            if ranked.order == "papers":
                return ranks.ranked_papers(wanted, having=ranked.role)
            return ranks.ranked(wanted, type_iri=type_iri, contains=contains, role=ranked.role)

        size = self.first_batch or ranked.limit
        while True:
            if size > self.max_candidates and contains is None:
                return _oxigraph_result(self._run(sparql, terms, {}), form, None)
            wanted = size if size <= self.max_candidates else None
            batch = first(wanted)
            bound = {ranked.variable: _iris(batch)}
            answer = self._run(sparql, terms, bound, together=True)
            result = _oxigraph_result(answer, form, None)
            if len(result.rows) >= ranked.limit or wanted is None or len(batch) < wanted:
                return result
            size *= self.growth

    def _run(
        self,
        sparql: str,
        terms: Mapping[str, Term],
        candidates: dict[str, list[str]],
        *,
        together: bool = False,
    ) -> Any:
        """The query's answer with `terms` bound and `candidates` pre-bound: in one block per
        group with `together` (what ranked runs need: see `inject_candidates`), else a block
        per variable (what label lookups were measured fastest with)."""
        names = sorted(terms)
        param_row = [str(terms[name]) for name in names]
        if together and candidates:
            variables = sorted(candidates)
            rows = [list(row) for row in itertools.product(*(candidates[v] for v in variables))]
            text = inject_candidates(sparql, names, param_row, variables, rows)
        else:
            text = inject_values(sparql, names, [param_row]) if names else sparql
            for variable, found in sorted(candidates.items()):
                text = inject_values(text, [variable], [[term] for term in found])
        try:
            return self.store.query(text, default_graph=self.graphs)
        except SyntaxError as exc:
            if text is not sparql:
                self._raise_unbound_error(sparql)
            raise syntax_error(str(exc), sparql) from exc
        except OSError as exc:
            raise StoreError(f"{self.description}: the store failed: {exc}") from exc

    def _raise_unbound_error(self, sparql: str) -> None:
        """Report a syntax error at its position in the query as written (not as bound)."""
        try:
            self.store.query(sparql, default_graph=self.graphs)
        except SyntaxError as exc:
            raise syntax_error(str(exc), sparql) from exc
        raise QueryError("the query's parameters could not be bound (a VALUES block failed)")

    def close(self) -> None:
        if self.ranks is not None:
            self.ranks.close()
        del self.store


def _iris(iris: list[str]) -> list[str]:
    """IRIs as SPARQL terms, written by pyoxigraph."""
    return [str(ox.NamedNode(iri)) for iri in iris]


def _oxigraph_result(answer: Any, form: str, limit: int | None) -> QueryResult:
    if isinstance(answer, ox.QueryBoolean):
        return QueryResult(form, boolean=bool(answer))
    if isinstance(answer, ox.QuerySolutions):
        variables = tuple(v.value for v in answer.variables)
        solutions, truncated = take(answer, limit)
        rows = [tuple(solution) for solution in solutions]
        return QueryResult(form, variables, rows, truncated=truncated)
    triples, truncated = take(answer, limit)
    return QueryResult(form, triples=triples, truncated=truncated)


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
        check_syntax(sparql)
        try:
            prepared = prepareQuery(sparql)
        except Exception as exc:
            raise _rdflib_syntax_error(exc, sparql) from exc
        init = {Variable(name): to_rdflib(term) for name, term in _terms(bindings).items()}
        answer = self.graph.query(prepared, initBindings=init)
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

    if isinstance(exc, ParseBaseException):
        return _located(exc.lineno, exc.col, exc.msg, sparql)
    return QueryError(f"SPARQL error: {exc}")
