"""The Oxigraph source: a store on disk (`kg load`) or a graph file loaded into memory, with
the label and rank indexes that let named queries pre-bind candidates (`kg.query.labels`,
`kg.query.ranks`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from kg.errors import QueryError, StoreError
from kg.query import answers
from kg.query.labels import build_label_index, candidates, data_graphs, has_label_index
from kg.query.links import LinkIndex
from kg.query.named import Ranked, ranked_paper_properties
from kg.query.ranks import RANK_FILE, RankIndex
from kg.query.result import QueryResult
from kg.query.safety import check_query
from kg.query.sources import Bindings, Source, bound_terms, syntax_error, take
from kg.query.sparql_text import (
    group_starts,
    inject_candidates,
    insert_blocks,
    query_form,
    values_block,
)
from kg.query.terms import Term
from kg.rdf.io import load_file, open_read_only

if TYPE_CHECKING:
    from kg.query.bind import Hints

__all__ = ["OxigraphSource"]


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

    def __init__(
        self,
        store: ox.Store,
        description: str,
        ranks: RankIndex | None = None,
        links: LinkIndex | None = None,
    ):
        self.store = store
        self.description = description
        self.indexed = has_label_index(store)
        self.graphs = data_graphs(store)
        # GRAPH ?g sees the data's named graphs only, never the label index.
        self.named = [g for g in self.graphs if not isinstance(g, ox.DefaultGraph)]
        self.ranks = ranks
        self.links = links  # `kg.query.answers` answers some named queries from it
        self.first_batch: int | None = None  # tests: start ranked runs this small

    @classmethod
    def open_dir(cls, path: Path) -> OxigraphSource:
        """The store in folder `path` (made by `kg load --store` or `kg build --store`)."""
        ranks = RankIndex.open(path)
        links = LinkIndex.open(path) if ranks is not None else None
        source = cls(open_read_only(path), f"{path} (Oxigraph store)", ranks, links)
        if source.ranks is None and (path / RANK_FILE).is_file():
            source.indexed = False  # another tool wrote to the store: its label index is old
        return source

    @classmethod
    def from_file(cls, path: Path) -> OxigraphSource:
        """A fresh in-memory store holding the graph file `path`, with its indexes."""
        store = ox.Store()
        load_file(store, path)
        build_label_index(store)
        graphs = data_graphs(store)
        ranks = RankIndex.build(store, graphs, paper_properties=ranked_paper_properties())
        links = LinkIndex.build(store, graphs, ranks=ranks)
        return cls(store, f"{path} (Oxigraph, in memory)", ranks, links if links.usable else None)

    def query(
        self,
        sparql: str,
        bindings: Bindings | None = None,
        *,
        limit: int | None = None,
        hints: Hints | None = None,
    ) -> QueryResult:
        form = query_form(sparql)
        check_query(sparql)  # never SERVICE or FROM; and nothing runs before this check
        terms = bound_terms(bindings)
        candidates = self._candidates(terms, hints) if hints is not None else {}
        ranked = hints.ranked if hints is not None else None
        usable = ranked is not None and self.ranks is not None and self.ranks.usable[ranked.order]
        try:
            if hints is not None and hints.query is not None and "c" in candidates:
                answered = self._answer(sparql, form, terms, hints.query, candidates["c"], limit)
                if answered is not None:
                    return answered
            # A label narrows the query more than any walk over every concept or paper: that
            # walk is for the rest. The first rows of papers linked to a label's concepts come
            # from a walk over those papers.
            walk = ranked is not None and ranked.limit is not None
            if hints is not None and walk and usable and not candidates:
                return self._run_ranked(sparql, form, terms, hints).cut(limit)
            if usable and limit is not None and ranked is not None and ranked.link in candidates:
                return self._run_linked(sparql, form, terms, candidates, ranked, limit)
            return _oxigraph_result(self._run(sparql, terms, candidates), form, limit)
        except OSError as exc:
            raise StoreError(f"{self.description}: the store failed: {exc}") from exc
        except RuntimeError as exc:  # Oxigraph's evaluation errors: an unsupported function, ...
            raise QueryError(f"SPARQL error: Oxigraph cannot evaluate this query: {exc}") from exc

    def _answer(
        self,
        sparql: str,
        form: str,
        terms: Mapping[str, Term],
        name: str,
        found: list[str],
        limit: int | None,
    ) -> QueryResult | None:
        """The answer of the named query `name` with its costly sub-select answered from the
        link index (`kg.query.answers`); None when there is no proven answer for it here."""
        if self.links is None or "concept" not in terms:
            return None

        def matched() -> list[str]:
            rows = self._run(answers.MATCH, {"concept": terms["concept"]}, {"c": found})
            return [row[0].value for row in rows if isinstance(row[0], ox.NamedNode)]

        def run(text: str, cap: int | None) -> QueryResult:
            return _oxigraph_result(self._query_text(text, sparql), form, cap)

        return answers.answer(
            name, sparql, terms, self.links, matched, run, limit, first_batch=self.first_batch
        )

    def _candidates(self, terms: Mapping[str, Term], hints: Hints) -> dict[str, list[str]]:
        """Variable -> the terms it may take, from the indexes (only variables they cover)."""
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
        assert ranked.limit is not None
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

    def _run_linked(
        self,
        sparql: str,
        form: str,
        terms: Mapping[str, Term],
        candidates: dict[str, list[str]],
        ranked: Ranked,
        limit: int,
    ) -> QueryResult:
        """The first `limit` rows of a query whose rows come in paper rank order, every row's
        paper linked by `ranked.role` to a candidate of `ranked.link`: run on the first such
        papers by rank (`limit` + 1 of them, then `growth` times more until it has more than
        `limit` rows or ran on all). Rows of later papers sort after theirs, so those are the
        query's first rows, and whether more follow is known."""
        assert self.ranks is not None and ranked.role is not None and ranked.link is not None
        role = ox.NamedNode(ranked.role)
        linked = {
            quad.subject.value
            for concept in candidates[ranked.link]
            for quad in self.store.quads_for_pattern(None, role, ox.NamedNode(concept[1:-1]))
            if isinstance(quad.subject, ox.NamedNode)
        }
        ranks = self.ranks.paper_ranks(linked)
        if len(ranks) < len(linked):  # a linked subject that is no ranked paper: no order
            return _oxigraph_result(self._run(sparql, terms, candidates), form, limit)
        papers = sorted(linked, key=ranks.__getitem__)
        size = self.first_batch or limit + 1
        while True:
            batch = {**candidates, ranked.variable: _iris(papers[:size])}
            result = _oxigraph_result(self._run(sparql, terms, batch), form, None)
            if len(result.rows) > limit or size >= len(papers):
                return result.cut(limit)
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
            # The blocks inject_values would add one after the other (parameters, then each
            # candidate variable at the start of its groups), placed from the positions in
            # the query as written, which are cached: no re-reading of a text with blocks.
            blocks: dict[int, str] = {}
            if names:
                block = values_block(names, [param_row])
                for at in _starts(sparql, names):
                    blocks[at] = block
            for variable, found in sorted(candidates.items()):
                block = values_block([variable], [[term] for term in found])
                for at in _starts(sparql, [variable]):
                    blocks[at] = block + blocks.get(at, "")
            text = insert_blocks(sparql, blocks) if blocks else sparql
        return self._query_text(text, sparql)

    def _query_text(self, text: str, sparql: str) -> Any:
        """Run `text`: the query `sparql` with its VALUES blocks."""
        try:
            return self.store.query(text, default_graph=self.graphs, named_graphs=self.named)
        except SyntaxError as exc:
            if text is not sparql:
                self._raise_unbound_error(sparql)
            raise syntax_error(str(exc), sparql) from exc
        except OSError as exc:
            raise StoreError(f"{self.description}: the store failed: {exc}") from exc
        except RuntimeError as exc:
            raise QueryError(f"SPARQL error: Oxigraph cannot evaluate this query: {exc}") from exc

    def _raise_unbound_error(self, sparql: str) -> None:
        """Report a syntax error at its position in the query as written (not as bound)."""
        try:
            self.store.query(sparql, default_graph=self.graphs, named_graphs=self.named)
        except SyntaxError as exc:
            raise syntax_error(str(exc), sparql) from exc
        raise QueryError("the query's parameters could not be bound (a VALUES block failed)")

    def close(self) -> None:
        if self.ranks is not None:
            self.ranks.close()
        del self.store


def _starts(sparql: str, variables: list[str]) -> list[int]:
    """Where `inject_values` binds `variables` (it raises when the query does not use them)."""
    starts = group_starts(sparql, variables)
    if not starts:
        unused = ", ".join(f"?{name}" for name in variables)
        raise QueryError(f"the query does not use {unused}, so it cannot be bound")
    return starts


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
