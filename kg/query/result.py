"""The result of one query, the same whichever engine or endpoint answered it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from kg.query.terms import Term


@dataclass(slots=True)
class QueryResult:
    """Rows of a SELECT, the answer of an ASK, or the triples of a CONSTRUCT/DESCRIBE.

    `rows[i][j]` is the term bound to `variables[j]` in solution `i` (None when unbound).
    `truncated` is True when a row limit cut the result short.
    """

    form: str
    variables: tuple[str, ...] = ()
    rows: list[tuple[Term | None, ...]] = field(default_factory=list)
    boolean: bool | None = None
    triples: list[ox.Triple] = field(default_factory=list)
    truncated: bool = False

    @property
    def is_graph(self) -> bool:
        """True for CONSTRUCT and DESCRIBE, whose result is a graph."""
        return self.form in ("CONSTRUCT", "DESCRIBE")

    def dicts(self) -> list[dict[str, Term]]:
        """The rows as `{variable: term}` dicts, unbound variables left out."""
        return [
            {name: term for name, term in zip(self.variables, row, strict=True) if term is not None}
            for row in self.rows
        ]

    def __len__(self) -> int:
        if self.form == "ASK":
            return 1
        return len(self.triples) if self.is_graph else len(self.rows)

    def skip(self, offset: int) -> QueryResult:
        """This result without its first `offset` rows (or triples): a later page."""
        if offset <= 0:
            return self
        if self.is_graph:
            return QueryResult(self.form, triples=self.triples[offset:], truncated=self.truncated)
        return QueryResult(
            self.form, self.variables, self.rows[offset:], self.boolean, truncated=self.truncated
        )

    def cut(self, limit: int | None) -> QueryResult:
        """This result with at most `limit` rows (or triples), marked truncated if it lost any."""
        if limit is None:
            return self
        if self.is_graph:
            return QueryResult(
                self.form,
                triples=self.triples[:limit],
                truncated=self.truncated or len(self.triples) > limit,
            )
        return QueryResult(
            self.form,
            self.variables,
            self.rows[:limit],
            self.boolean,
            truncated=self.truncated or len(self.rows) > limit,
        )
