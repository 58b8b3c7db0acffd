"""A remote SPARQL 1.1 server: query it via the Protocol, push graphs to it.

Queries go as form-encoded POSTs (the one request shape every server accepts), parameters as a
`VALUES` block of terms serialised by pyoxigraph. Graphs go either through the Graph Store
Protocol (PUT replaces, POST adds) or as one SPARQL Update request (`CLEAR` + `INSERT DATA`),
which a server applies atomically. Uses the standard library's HTTP client: the protocol is a
plain POST, and the results are parsed by pyoxigraph.
"""

from __future__ import annotations

import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pyoxigraph as ox

from kg.errors import QueryError, StoreError
from kg.query.result import QueryResult
from kg.query.sources import Bindings, Source, bind_values, bound_terms, take
from kg.query.sparql_text import query_form
from kg.rdf.io import parse_file, quads

if TYPE_CHECKING:
    from kg.query.bind import Hints

__all__ = ["EndpointSource", "Protocol", "PushReport", "push_graph"]

USER_AGENT = "paperkg (https://w3id.org/paperkg)"

# Response media type -> how pyoxigraph parses it.
_RESULT_TYPES = {
    "application/sparql-results+json": ox.QueryResultsFormat.JSON,
    "application/json": ox.QueryResultsFormat.JSON,
    "application/sparql-results+xml": ox.QueryResultsFormat.XML,
    "application/xml": ox.QueryResultsFormat.XML,
    "text/csv": ox.QueryResultsFormat.CSV,
    "text/tab-separated-values": ox.QueryResultsFormat.TSV,
}
_GRAPH_TYPES = {
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "text/plain": ox.RdfFormat.N_TRIPLES,
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
    "application/ld+json": ox.RdfFormat.JSON_LD,
    "application/n-quads": ox.RdfFormat.N_QUADS,
    "application/trig": ox.RdfFormat.TRIG,
}


class EndpointSource(Source):
    """A SPARQL 1.1 query endpoint, e.g. `http://127.0.0.1:7878/query` (Oxigraph) or
    `http://localhost:3030/ds/sparql` (Fuseki)."""

    def __init__(self, url: str, *, timeout: float = 60.0):
        if not url.startswith(("http://", "https://")):
            raise StoreError(f"endpoint {url!r} is not an http(s) URL")
        self.url = url
        self.timeout = timeout
        self.description = f"{url} (SPARQL endpoint)"

    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        form = query_form(sparql)
        terms = bound_terms(bindings)
        text = bind_values(sparql, terms) if terms else sparql
        graph = form in ("CONSTRUCT", "DESCRIBE")
        accept = (
            "application/n-triples, text/turtle;q=0.9"
            if graph
            else "application/sparql-results+json, application/sparql-results+xml;q=0.9"
        )
        body = urllib.parse.urlencode({"query": text}).encode()
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": accept,
                "User-Agent": USER_AGENT,
            },
        )
        content_type, payload = self._send(request)
        if graph:
            rdf_format = _GRAPH_TYPES.get(content_type)
            if rdf_format is None:
                raise StoreError(f"{self.url} answered {content_type!r}, not an RDF graph")
            triples, truncated = take(ox.parse(payload, rdf_format), limit)
            return QueryResult(form, triples=list(triples), truncated=truncated)
        results_format = _RESULT_TYPES.get(content_type)
        if results_format is None:
            raise StoreError(f"{self.url} answered {content_type!r}, not SPARQL results")
        try:
            answer = ox.parse_query_results(payload, results_format)
        except SyntaxError as exc:
            raise StoreError(f"{self.url} sent unreadable {content_type}: {exc}") from exc
        if isinstance(answer, ox.QueryBoolean):
            return QueryResult(form, boolean=bool(answer))
        variables = tuple(v.value for v in answer.variables)
        solutions, truncated = take(answer, limit)
        return QueryResult(form, variables, [tuple(s) for s in solutions], truncated=truncated)

    def _send(self, request: urllib.request.Request) -> tuple[str, bytes]:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                content_type = response.headers.get_content_type()
                return content_type, response.read()
        except urllib.error.HTTPError as exc:
            message = exc.read().decode("utf-8", "replace").strip()[:2000]
            if exc.code == 400:
                raise QueryError(f"{self.url} rejected the query: {message}") from exc
            raise StoreError(f"{self.url} answered HTTP {exc.code}: {message}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise StoreError(f"cannot reach the SPARQL endpoint {self.url}: {exc}") from exc


class Protocol(StrEnum):
    """How `push_graph` writes to a server."""

    GSP = "gsp"  # Graph Store Protocol: PUT/POST the graph to the store URL
    UPDATE = "update"  # SPARQL 1.1 Update: CLEAR + INSERT DATA in one request


@dataclass(frozen=True, slots=True)
class PushReport:
    """What a push did."""

    url: str
    graph: str | None
    triples: int
    seconds: float
    protocol: Protocol

    def summary(self) -> str:
        """One line for the terminal."""
        target = f"graph <{self.graph}>" if self.graph else "the default graph"
        return (
            f"{self.url}: pushed {self.triples:,} triples to {target} "
            f"({self.protocol.value}) in {self.seconds:.1f} s"
        )


def push_graph(
    url: str,
    graph_path_or_triples: Path | str | Iterable[Any],
    *,
    graph: str | None = None,
    replace: bool = True,
    protocol: Protocol | str = Protocol.GSP,
    timeout: float = 600.0,
) -> PushReport:
    """Send a graph file (or pyoxigraph triples) to a server, into `graph` or the default graph.

    `url` is the server's Graph Store endpoint for `Protocol.GSP` (Oxigraph: `/store`, Fuseki:
    `/DATASET/data`) and its update endpoint for `Protocol.UPDATE` (Oxigraph: `/update`).
    `replace=True` replaces the graph's contents, else the triples are added. One request,
    applied atomically by the server. Raises `InputError`, `QueryError` (a bad graph name) or
    `StoreError`.
    """
    protocol = Protocol(protocol)
    if graph is not None:
        try:
            ox.NamedNode(graph)  # a bad IRI fails before anything is sent
        except ValueError as exc:
            raise QueryError(f"graph name {graph!r} is not an IRI: {exc}") from exc
    start = time.perf_counter()
    with tempfile.TemporaryFile() as body:
        count = _write_ntriples(graph_path_or_triples, body, protocol, graph, replace)
        size = body.tell()
        body.seek(0)
        if protocol is Protocol.GSP:
            target = (
                url
                + ("&" if "?" in url else "?")
                + (urllib.parse.urlencode({"graph": graph}) if graph else "default")
            )
            method, content_type = ("PUT" if replace else "POST"), "application/n-triples"
        else:
            target, method, content_type = url, "POST", "application/sparql-update"
        request = urllib.request.Request(
            target,
            data=body,
            method=method,
            headers={
                "Content-Type": content_type,
                "Content-Length": str(size),
                "User-Agent": USER_AGENT,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            message = exc.read().decode("utf-8", "replace").strip()[:2000]
            raise StoreError(f"{target} refused the graph (HTTP {exc.code}): {message}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise StoreError(f"cannot reach {target}: {exc}") from exc
    return PushReport(url, graph, count, time.perf_counter() - start, protocol)


def _write_ntriples(
    data: Path | str | Iterable[Any],
    out: IO[bytes],
    protocol: Protocol,
    graph: str | None,
    replace: bool,
) -> int:
    """Write the request body, streaming; return the number of triples in it."""
    if protocol is Protocol.UPDATE:
        target = f"GRAPH <{graph}>" if graph else "DEFAULT"
        if replace:
            out.write(f"CLEAR SILENT {target} ;\n".encode())
        out.write(b"INSERT DATA {\n")
        if graph:
            out.write(f"GRAPH <{graph}> {{\n".encode())
    count = 0

    def counted(items: Iterable[ox.Quad]) -> Iterable[ox.Triple]:
        nonlocal count
        for quad in items:
            count += 1
            yield ox.Triple(quad.subject, quad.predicate, quad.object)

    if isinstance(data, str | Path):
        read = parse_file(data, nothing="nothing sent")
        ox.serialize(counted(read), out, ox.RdfFormat.N_TRIPLES)
    else:
        ox.serialize(counted(quads(data)), out, ox.RdfFormat.N_TRIPLES)
    if protocol is Protocol.UPDATE:
        out.write(b"}\n}\n" if graph else b"}\n")
    return count
