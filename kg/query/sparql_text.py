"""Just enough SPARQL lexing to find a query's form and its group patterns.

Parameters reach Oxigraph and remote endpoints as a one-row `VALUES` block placed at the start
of every group pattern (`WHERE { VALUES (?a ?b) { (t1 t2) } … }`), which binds them throughout
the query like rdflib's initBindings. The block's terms are written by pyoxigraph
(`str(term)`: N-Triples syntax, which SPARQL reads as the same term), so a value cannot add
syntax to the query; this module only finds *where* the blocks go.

Hand-written because neither rdflib nor pyoxigraph exposes token positions. It knows the
lexical tokens that can hide a brace: strings (all four quotings), IRIs and comments.

>>> query_form("PREFIX ex: <http://e/#> select * { ?s ?p ?o }")
'SELECT'
>>> q = 'SELECT ?p WHERE { ?p ?x "{" OPTIONAL { ?p ?q ?x } }'
>>> inject_values(q, ["x"], [['"a}"']])
'SELECT ?p WHERE { VALUES (?x) { ("a}") } ?p ?x "{" OPTIONAL { VALUES (?x) { ("a}") } ?p ?q ?x } }'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from kg.errors import QueryError

FORMS = ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")

# Order matters: long-quoted strings before short ones.
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
              |'(?:[^'\\\n\r]|\\.)*'|"(?:[^"\\\n\r]|\\.)*")
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<var>[?$][A-Za-z0-9_\u00b7\u00c0-\U000effff]+)
  | (?P<word>[A-Za-z_][A-Za-z0-9_\-.:]*|:[A-Za-z0-9_\-.:]*)
  | (?P<punct>[{}()])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Token:
    """One lexical token: its kind (a group name of `_TOKEN`), text and start offset."""

    kind: str
    text: str
    start: int


def tokens(text: str) -> Iterator[Token]:
    """The tokens of a query, without whitespace and comments.

    >>> [t.text for t in tokens('ASK { <a> ?b "x # y" } # done')]
    ['ASK', '{', '<a>', '?b', '"x # y"', '}']
    """
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind not in ("ws", "comment"):
            yield Token(kind, match.group(), match.start())


def query_form(text: str) -> str:
    """SELECT, CONSTRUCT, ASK or DESCRIBE; raises `QueryError` when there is none (an update)."""
    for token in tokens(text):
        if token.kind == "word" and token.text.upper() in FORMS:
            return token.text.upper()
        if token.kind == "punct":
            break
    raise QueryError(
        "not a SPARQL query: expected SELECT, CONSTRUCT, ASK or DESCRIBE "
        "(updates are not accepted here)"
    )


@dataclass(slots=True)
class _Group:
    at: int  # offset just after its "{"; -1 for the wrapper of a sub-SELECT
    boundary: bool  # its variables are not in scope outside it (EXISTS, MINUS, sub-SELECT)
    used: bool = False


def group_starts(text: str, variables: Iterable[str] | None = None) -> list[int]:
    """The offsets just after every `{` that opens a group graph pattern (see
    `_group_starts`); cached, as named queries bind the same variables of the same text on
    every call."""
    return list(_group_starts(text, None if variables is None else tuple(variables)))


@functools.lru_cache(maxsize=1024)
def _group_starts(text: str, variables: tuple[str, ...] | None) -> tuple[int, ...]:
    """The offsets just after every `{` that opens a group graph pattern.

    That is every `{` except a CONSTRUCT template, a VALUES data block and a group that holds
    a sub-SELECT (whose own WHERE group is counted). With `variables`, only the groups in
    which one of them is in scope are listed: the group that uses it and the groups around,
    up to the first EXISTS, MINUS or sub-SELECT (whose variables stay inside). The CONSTRUCT
    WHERE short form has no group of its own, so it cannot take parameters.
    """
    wanted = None if variables is None else set(variables)
    found: list[int] = []
    items = list(tokens(text))
    skipping = False  # inside a template or data block (they hold no braces)
    values_pending = False
    groups: list[_Group] = []
    for i, token in enumerate(items):
        previous = items[i - 1] if i > 0 else None
        if _is_word(token, "VALUES"):
            values_pending = True
        if token.kind == "var" and wanted is not None and token.text[1:] in wanted:
            for group in reversed(groups):
                group.used = True
                if group.boundary:
                    break
        if token.kind != "punct" or token.text not in "{}":
            continue
        if token.text == "}":
            if skipping:
                skipping = False
            elif groups:
                group = groups.pop()
                if group.at >= 0 and (wanted is None or group.used):
                    found.append(group.at)
                if groups and groups[-1].at < 0:
                    groups[-1].boundary = True  # after its WHERE: GROUP BY, ORDER BY, HAVING
            continue
        if values_pending or _is_word(previous, "CONSTRUCT"):
            skipping, values_pending = True, False
        elif _is_word(previous, "WHERE") and i > 1 and _is_word(items[i - 2], "CONSTRUCT"):
            raise QueryError(
                "CONSTRUCT WHERE { … } cannot take parameters: write the template out "
                "(CONSTRUCT { … } WHERE { … })"
            )
        elif i + 1 < len(items) and _is_word(items[i + 1], "SELECT"):
            groups.append(_Group(-1, boundary=False))  # not a place for VALUES
        else:
            in_subselect = bool(groups) and groups[-1].at < 0
            boundary = in_subselect or _is_word(previous, "EXISTS") or _is_word(previous, "MINUS")
            groups.append(_Group(token.start + 1, boundary))
    if not found and wanted is None:
        raise QueryError("the query has no group pattern ({ … }) to bind parameters in")
    return tuple(sorted(found))


def _is_word(token: Token | None, word: str) -> bool:
    return token is not None and token.kind == "word" and token.text.upper() == word


def inject_values(text: str, variables: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """`text` with `VALUES (?v…) { (term…) }` at the start of every group that uses a `?v`.

    Joining the same one-row VALUES block into each such group binds each variable throughout
    the query, as if every occurrence were replaced by its term (SEP-0007 substitution, and
    what rdflib's initBindings does): a parameter means the same in a nested group, an
    OPTIONAL, a UNION branch, an EXISTS or a sub-SELECT as at the top. Groups that do not use
    the variables are left alone (a join there would only cost time). `rows` hold terms
    serialised by pyoxigraph (`str(term)`); `UNDEF` leaves a variable unbound.
    """
    if not variables:
        return text
    block = values_block(variables, rows)
    starts = group_starts(text, variables)
    if not starts:
        unused = ", ".join(f"?{name}" for name in variables)
        raise QueryError(f"the query does not use {unused}, so it cannot be bound")
    return insert_blocks(text, {at: block for at in starts})


def inject_candidates(
    text: str,
    params: Sequence[str],
    param_row: Sequence[str],
    variables: Sequence[str],
    rows: Sequence[Sequence[str]],
) -> str:
    """Bind `params` to `param_row` (as `inject_values`) and pre-bind `variables` to `rows`.

    Each group gets one VALUES block of just the variables in scope there: where a parameter
    and a candidate variable meet, one multi-column block (two blocks can make Oxigraph scan a
    parameter's matches before joining the candidates); elsewhere a block of what the group
    uses (a variable a group does not use can change Oxigraph's join order for the worse, and
    a candidate must not enter a sub-SELECT that does not use it, where its rows multiply).

    >>> print(inject_candidates("{ ?c a ?t {SELECT ?t { ?x a ?t }} }", ["t"], ["<T>"],
    ...                         ["c"], [["<a>"], ["<b>"]]))
    { VALUES (?t ?c) { (<T> <a>) (<T> <b>) } ?c a ?t {SELECT ?t { VALUES (?t) { (<T>) } ?x a ?t }} }
    """
    names = [*params, *variables]
    scope: dict[int, set[str]] = {}
    for name in names:
        for at in group_starts(text, [name]):
            scope.setdefault(at, set()).add(name)
    if not any(v in used for used in scope.values() for v in variables):
        unused = ", ".join(f"?{name}" for name in variables)
        raise QueryError(f"the query does not use {unused}, so it cannot be bound")
    full_rows = [[*param_row, *row] for row in rows]
    blocks = {}
    for at, used in scope.items():
        columns = [i for i, name in enumerate(names) if name in used]
        picked = sorted({tuple(row[i] for i in columns) for row in full_rows})
        blocks[at] = values_block([names[i] for i in columns], picked)
    return insert_blocks(text, blocks)


def values_block(variables: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """` VALUES (?a ?b) { (t1 t2) … }`; the names must be plain variable names."""
    for name in variables:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise QueryError(f"{name!r} is not a SPARQL variable name (letters, digits, _)")
    head = " ".join(f"?{name}" for name in variables)
    body = " ".join("(" + " ".join(row) + ")" for row in rows)
    return f" VALUES ({head}) {{ {body} }}"


def insert_blocks(text: str, blocks: dict[int, str]) -> str:
    """`text` with each block inserted at its offset."""
    pieces, last = [], 0
    for at in sorted(blocks):
        pieces.append(text[last:at])
        pieces.append(blocks[at])
        last = at
    pieces.append(text[last:])
    return "".join(pieces)


def undeclared_prefix(text: str) -> Token | None:
    """The first prefixed name whose prefix no PREFIX declares (a common slip).

    Parsers report it as an unexpected token somewhere nearby; this finds the real cause.

    >>> undeclared_prefix("PREFIX x: <http://x/> SELECT * { ?s x:p ?o ; y:q ?z }").text
    'y:q'
    """
    declared: set[str] = set()
    previous: Token | None = None
    for token in tokens(text):
        if token.kind == "word" and ":" in token.text:
            prefix = token.text.split(":", 1)[0]
            if _is_word(previous, "PREFIX"):
                declared.add(prefix)
            elif prefix not in declared and prefix != "_":
                return token
        previous = token
    return None


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@functools.lru_cache(maxsize=64)
def values_template(text: str, projection: tuple[str, ...]) -> tuple[str, int]:
    """`text` with the first sub-select that projects exactly `projection` (in that order)
    replaced by the group `{ VALUES (?a ?b) { } }`, and the offset in that block where its
    rows go (`fill_template`). The rest of the text is unchanged: the engine runs it on the
    rows given for the sub-select as it would on the sub-select's own.

    >>> q = "SELECT * { ?x ?p ?n { SELECT ?x (COUNT(*) AS ?n) { ?x ?q ?y } GROUP BY ?x } }"
    >>> template, at = values_template(q, ("x", "n"))
    >>> template
    'SELECT * { ?x ?p ?n { VALUES (?x ?n) {  } } }'
    >>> template[:at] + "(<a> 1)" + template[at:]
    'SELECT * { ?x ?p ?n { VALUES (?x ?n) { (<a> 1) } } }'
    """
    items = list(tokens(text))
    for i, token in enumerate(items):
        if token.text != "{" or i + 1 >= len(items) or not _is_word(items[i + 1], "SELECT"):
            continue
        if _projection(items, i + 2) != list(projection):
            continue
        depth = 0
        for end in range(i, len(items)):
            if items[end].kind == "punct" and items[end].text in "{}":
                depth += 1 if items[end].text == "{" else -1
                if depth == 0:
                    block = values_block(projection, [])
                    head = text[: token.start] + "{" + block[: -len(" }")]
                    return head + " } }" + text[items[end].start + 1 :], len(head)
    wanted = " ".join(f"?{name}" for name in projection)
    raise QueryError(f"the query has no sub-select of {wanted} to answer from an index")


def _projection(items: list[Token], at: int) -> list[str]:
    """The variables a SELECT clause starting at token `at` projects, in order."""
    found: list[str] = []
    depth = 0
    alias = False
    for token in items[at:]:
        if depth == 0 and (_is_word(token, "WHERE") or token.text == "{"):
            break
        if token.kind == "punct" and token.text in "()":
            depth += 1 if token.text == "(" else -1
        elif _is_word(token, "AS"):
            alias = True
        elif token.kind == "var" and (depth == 0 or alias):
            found.append(token.text[1:])
            alias = False
    return found


def fill_template(
    template: str,
    at: int,
    rows: Sequence[Sequence[str]],
    params: Sequence[str] = (),
    param_row: Sequence[str] = (),
) -> str:
    """A `values_template` with its `rows`, and `params` bound to `param_row` as
    `inject_values` binds them (parameters the template no longer uses are left out)."""
    blocks: dict[int, str] = {at: " ".join("(" + " ".join(row) + ")" for row in rows)}
    used = [(name, term) for name, term in zip(params, param_row, strict=True)
            if group_starts(template, [name])]
    if used:
        block = values_block([name for name, _ in used], [[term for _, term in used]])
        for start in group_starts(template, [name for name, _ in used]):
            blocks[start] = block
    return insert_blocks(template, blocks)
