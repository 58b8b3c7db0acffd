"""Queries that would reach outside the graph are refused, from their parse tree.

A SPARQL query can make the engine fetch other data: `SERVICE <url> { … }` (federation: both
rdflib and Oxigraph send an HTTP request) and `FROM` / `FROM NAMED <url>` (rdflib loads the URL
into the dataset). `check_query` parses the text with rdflib's SPARQL parser and walks the whole
parse tree for those clauses, wherever they sit (sub-query, EXISTS, OPTIONAL, GRAPH, …); the
query is never run to find out. `LOAD` is an update, which the parser of queries rejects.

The engines are locked down as well, in case a query ever got past the check (defence in
depth): `lock_down_rdflib` stops rdflib's FROM loading and SERVICE evaluation, and
`sandbox_process` cuts a query worker off the network (an empty network namespace, where the
kernel allows one, which also stops Oxigraph's SERVICE client; and an audit hook that refuses
every socket connection and URL request from Python code).

>>> check_query("SELECT * WHERE { ?s ?p ?o }")
>>> check_query("SELECT * WHERE { SERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }")
Traceback (most recent call last):
...
kg.query.safety.RefusedQuery: SERVICE is disabled: queries read this graph, never other endpoints
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Iterable
from typing import Any

from kg.errors import QueryError
from kg.query.sparql_text import line_column, tokens, undeclared_prefix

# Deeper nesting of { } and ( ) is refused before parsing: real queries stay far below, and
# recursive-descent parsers (rdflib's, Oxigraph's) can run out of stack on deeper ones.
MAX_NESTING = 100
# rdflib's parser recurses ~10 Python frames per nesting level.
_PARSE_RECURSION_LIMIT = 20_000

# Parse-tree nodes that make an engine fetch a URL, and why they are refused.
_FORBIDDEN = {
    "ServiceGraphPattern": "SERVICE is disabled: queries read this graph, never other endpoints",
    "DatasetClause": "FROM / FROM NAMED are disabled: queries read this graph, never URLs",
}


class RefusedQuery(QueryError):
    """A well-formed query that asks for something this engine will not do (fetch a URL)."""


def check_query(sparql: str) -> None:
    """Raise `RefusedQuery` for SERVICE or FROM anywhere in the query, `QueryError` when it
    does not parse or is nested more than `MAX_NESTING` deep; return None when it is safe.

    The verdict is cached, as named queries repeat their text; texts another process checked
    (`trust`) pass at once.
    """
    if sparql in _TRUSTED:
        return
    kind, message = _verdict(sparql)
    if kind == "refused":
        raise RefusedQuery(message)
    if kind == "error":
        raise QueryError(message)


_TRUSTED: set[str] = set()


def trust(texts: Iterable[str]) -> None:
    """Let `texts` pass `check_query` without parsing them again in this process: texts the
    process that sent them here has checked (the named queries, checked once when `kg serve`
    starts: `kg.query.named.checked_texts`)."""
    _TRUSTED.update(texts)


@functools.lru_cache(maxsize=512)
def _verdict(sparql: str) -> tuple[str, str]:
    try:
        checked_tree(sparql)
    except RefusedQuery as exc:
        return "refused", str(exc)
    except QueryError as exc:
        return "error", str(exc)
    return "ok", ""


def checked_tree(sparql: str) -> Any:
    """rdflib's parse tree of a query that passes the check (see `check_query`, which this is
    without the cache), for a caller that goes on to translate it (`RdflibSource`)."""
    depth = nesting(sparql)
    if depth > MAX_NESTING:
        raise QueryError(
            f"the query is nested {depth} levels deep; at most {MAX_NESTING} levels of "
            "{ } and ( ) are accepted"
        )
    from pyparsing import ParseBaseException
    from rdflib.plugins.sparql.parser import parseQuery

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _PARSE_RECURSION_LIMIT))
    try:
        tree = parseQuery(sparql)
    except ParseBaseException as exc:
        raise parse_error(exc, sparql) from exc
    except RecursionError as exc:
        raise QueryError("the query is nested too deeply to be parsed") from exc
    except Exception as exc:  # rdflib raises plain Exception for some malformed input
        raise QueryError(f"SPARQL syntax error: {exc}") from exc
    finally:
        sys.setrecursionlimit(limit)
    for name in _node_names(tree):
        if name in _FORBIDDEN:
            raise RefusedQuery(_FORBIDDEN[name])
    return tree


def _node_names(tree: Any) -> list[str]:
    """The names of every rdflib `CompValue` node in a parse tree (walked without recursion,
    so a deep tree cannot overflow the stack)."""
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    names: list[str] = []
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            names.append(node.name)
            stack.extend(dict.values(node))
        elif isinstance(node, ParseResults):
            stack.extend(node)
            stack.extend(node.as_dict().values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    return names


def nesting(sparql: str) -> int:
    """The deepest nesting of braces and parentheses outside strings, IRIs and comments."""
    depth = deepest = 0
    for token in tokens(sparql):
        if token.kind != "punct":
            continue
        if token.text in "{(":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


def undeclared_prefix_error(sparql: str) -> QueryError | None:
    """The error for the first prefix `sparql` uses without declaring it, with its position."""
    undeclared = undeclared_prefix(sparql)
    if undeclared is None:
        return None
    line, column = line_column(sparql, undeclared.start)
    prefix = undeclared.text.split(":", 1)[0]
    return located(
        line, column, f"undeclared prefix '{prefix}:' (add PREFIX {prefix}: <…>)", sparql
    )


def parse_error(exc: Exception, sparql: str) -> QueryError:
    """A `QueryError` for an rdflib/pyparsing syntax error: line, column, message, the line."""
    undeclared = undeclared_prefix_error(sparql)
    if undeclared is not None:
        return undeclared
    lineno, col, msg = (getattr(exc, name, None) for name in ("lineno", "col", "msg"))
    if isinstance(lineno, int) and isinstance(col, int):
        return located(lineno, col, str(msg), sparql)
    return QueryError(f"SPARQL syntax error: {exc}")


def located(line: int, column: int, message: str, sparql: str) -> QueryError:
    """A syntax error that quotes the line and points at the column."""
    lines = sparql.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    pointer = " " * max(column - 1, 0) + "^"
    return QueryError(
        f"SPARQL syntax error at line {line}, column {column}: {message}\n  {text}\n  {pointer}"
    )


# --- defence in depth ----------------------------------------------------------------------------
_NO_SERVICE = "paperkg_no_service"


def lock_down_rdflib() -> None:
    """Make rdflib's SPARQL engine unable to fetch: FROM no longer loads URLs (they only name
    graphs of the dataset) and a SERVICE pattern raises `RefusedQuery` instead of calling out.

    Process-wide and idempotent (rdflib keeps these settings in module globals).
    """
    import rdflib.plugins.sparql as rdflib_sparql

    rdflib_sparql.SPARQL_LOAD_GRAPHS = False
    if _NO_SERVICE not in rdflib_sparql.CUSTOM_EVALS:
        others = dict(rdflib_sparql.CUSTOM_EVALS)
        rdflib_sparql.CUSTOM_EVALS.clear()
        rdflib_sparql.CUSTOM_EVALS[_NO_SERVICE] = _refuse_service  # first: before any plugin
        rdflib_sparql.CUSTOM_EVALS.update(others)


def _refuse_service(ctx: Any, part: Any) -> Any:
    if part.name == "ServiceGraphPattern":
        raise RefusedQuery(_FORBIDDEN["ServiceGraphPattern"])
    raise NotImplementedError  # rdflib's protocol for "not mine": evaluate as usual


_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_BLOCKED_EVENTS = frozenset(
    {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "urllib.Request"}
)


def sandbox_process() -> bool:
    """Cut this process off the network before it opens anything; True when the kernel put it
    in an empty network namespace, False when only the audit hook guards it.

    Call first thing in a fresh, single-threaded process (a query worker): the namespace needs
    one thread, and the audit hook cannot be removed once added. The namespace has no network
    device but a loopback that is down, so even native code (Oxigraph's SERVICE client)
    cannot connect anywhere; the audit hook refuses connections made from Python (rdflib).
    """
    isolated = False
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        isolated = libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) == 0
    sys.addaudithook(_no_network)
    return isolated


def _no_network(event: str, args: tuple[Any, ...]) -> None:
    if event in _BLOCKED_EVENTS:
        raise RefusedQuery("network access is disabled in query workers")
