"""The rank index (`kg.query.ranks`) and the `@ranked` named queries it speeds up: on a store
with the index they give the rows rdflib gives, whatever the batch sizes, and an index that
does not fit its store is not used."""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pyoxigraph as ox
import pytest

import kg.query.named as queries
import kg.query.ranks as ranks_module
from kg.query import open_source, run_named
from kg.query.formats import compact
from kg.query.labels import data_graphs
from kg.query.oxigraph_source import OxigraphSource
from kg.query.ranks import RANK_FILE, RankIndex
from kg.query.sources import Source
from kg.query.store import load_store

KG = "https://w3id.org/paperkg/ontology#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
EX = "https://example.org/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
TYPES = ["Model", "Method", "Task", "Dataset", "Metric", "Concept"]
# Labels that tie ignoring case, sort differently by case, or fold specially (ß, Σ).
WORDS = ["Diffusion", "diffusion", "GAN", "gan", "Straße", "STRASSE", "ΣNet", "bench", "x", "Zeta"]


def _turtle(concepts: int = 240, papers: int = 120, seed: int = 11) -> str:
    """A graph of concepts with few distinct paper counts and labels (so ties abound), types,
    altLabels, proposing papers and vocabulary matches."""
    rng = random.Random(seed)
    lines = [
        f"@prefix kg: <{KG}> .",
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .",
        "@prefix dcterms: <http://purl.org/dc/terms/> .",
        "@prefix schema: <https://schema.org/> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
    ]
    for i in range(concepts):
        label = f"{rng.choice(WORDS)} {rng.choice(WORDS)}".strip()
        lines.append(
            f'<{EX}c{i}> a skos:Concept, kg:{rng.choice(TYPES)} ; skos:prefLabel "{label}" ; '
            f"kg:paperCount {rng.randint(1, 6)} ."
        )
        if rng.random() < 0.3:
            alt = f"{rng.choice(WORDS)}-{i % 7}"  # shared by several concepts
            lines.append(f'<{EX}c{i}> skos:altLabel "{alt}" .')
            if rng.random() < 0.7:
                lines.append(f'<{EX}c{i}> kg:acronym "{alt}" .')
        if rng.random() < 0.2:
            lines.append(
                f"<{EX}m{i}> kg:matchedConcept <{EX}c{i}> ; kg:matchTarget <{EX}v{i}> ; "
                f'kg:matchProperty <{EX}exact> ; kg:matchMethod "label" ; kg:matchSource "pwc" .'
            )
    for p in range(papers):
        # Few years and titles that tie ignoring case; some papers lack one or the other.
        lines.append(f"<{EX}p{p}> a schema:ScholarlyArticle .")
        if rng.random() < 0.9:
            lines.append(f'<{EX}p{p}> dcterms:title "{rng.choice(WORDS)} study" .')
        if rng.random() < 0.9:
            year = rng.choice([2021, 2022, 2023])
            lines.append(f'<{EX}p{p}> schema:datePublished "{year}"^^xsd:gYear .')
        if rng.random() < 0.4:
            lines.append(f"<{EX}p{p}> schema:codeRepository <https://github.com/x/p{p}> .")
        for c in rng.sample(range(concepts), 3):
            role = "proposes" if rng.random() < 0.4 else "uses"
            lines.append(f"<{EX}p{p}> kg:{role} <{EX}c{c}> ; kg:mentions <{EX}c{c}> .")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ranks") / "graph.ttl"
    path.write_text(_turtle(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(graph: Path) -> Source:
    return open_source(graph, engine="rdflib")


@pytest.fixture(scope="module")
def store_dir(graph: Path) -> Path:
    target = graph.parent / "graph.db"
    load_store(target, graph)
    return target


def _rows(source: Source, name: str, params: dict[str, str]) -> list[list[str]]:
    return [[compact(term) for term in row] for row in run_named(source, name, params).rows]


RANKED_CASES = [
    ("top-concepts", {}),
    ("top-concepts", {"type": "Task"}),
    ("top-concepts", {"type": "Metric"}),
    ("proposed-methods", {}),
    ("proposed-methods", {"type": "Dataset"}),
    ("search", {"text": "diffusion"}),
    ("search", {"text": "Strasse"}),
    ("search", {"text": "ß"}),
    ("search", {"text": "σnet"}),
    ("search", {"text": "a"}),
    ("search", {"text": "gan", "type": "Model"}),
    ("search", {"text": 'x" OR "gan'}),
    ("search", {"text": "nothing like it"}),
    ("vocabulary-matches", {}),
    ("vocabulary-matches", {"concept": "GAN gan"}),
    ("acronyms", {}),
    ("acronyms", {"acronym": "gan-3"}),
    ("code-links", {}),
    ("code-links", {"concept": "gan-3"}),
]
# (first batch, growth, most candidates before a plain run): the defaults, small batches
# that grow several times, and a cap that makes the query fall back to its plain run.
BATCHES = [(None, 4, 20_000), (1, 2, 20_000), (3, 3, 40)]


def test_the_named_queries_that_sort_by_rank_say_so() -> None:
    ranked = {q.name: q.ranked for q in queries.all_queries() if q.ranked is not None}
    assert sorted(ranked) == [
        "acronyms", "code-links", "papers-using", "proposed-methods", "search",
        "top-concepts", "vocabulary-matches",
    ]
    assert ranked["papers-using"] == queries.Ranked(
        "paper", None, None, KG + "mentions", "papers", "c"
    )
    assert ranked["code-links"].order == "papers"
    assert ranked["code-links"].role == "https://schema.org/codeRepository"
    assert ranked["proposed-methods"].role == KG + "proposes"
    assert ranked["top-concepts"].limit == 25


@pytest.mark.parametrize("batches", BATCHES, ids=["default", "small", "capped"])
@pytest.mark.parametrize(
    ("name", "params"), RANKED_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(RANKED_CASES)]
)
def test_a_ranked_query_gives_the_rows_of_a_plain_run(
    store_dir: Path,
    reference: Source,
    name: str,
    params: dict[str, str],
    batches: tuple[int | None, int, int],
) -> None:
    source = open_source(store=store_dir)
    assert isinstance(source, OxigraphSource) and source.ranks is not None
    source.first_batch, source.growth, source.max_candidates = batches
    expected = _rows(reference, name, params)
    if name == "top-concepts" or (name == "search" and params["text"] == "a"):
        assert len(expected) == queries.get(name).ranked.limit  # type: ignore[union-attr]
    assert _rows(source, name, params) == expected
    source.close()


@pytest.mark.parametrize("batches", BATCHES, ids=["default", "small", "capped"])
@pytest.mark.parametrize("limit", [1, 2, 5, 50])
@pytest.mark.parametrize(
    "params",
    [{"concept": "GAN gan"}, {"concept": "diffusion DIFFUSION"}, {"concept": "x x"},
     {"concept": "gan-3"}, {"concept": "gan gan", "role": "proposes"}, {"concept": "none such"}],
)
def test_the_first_rows_of_papers_linked_to_a_concept_come_from_a_walk(
    store_dir: Path,
    reference: Source,
    params: dict[str, str],
    limit: int,
    batches: tuple[int | None, int, int],
) -> None:
    """`@ranked ?paper kg:mentions ?c` (papers-using): a row limit (a server's page) runs the
    query on the first papers by rank that mention the concept's candidates; the rows are the
    first rows of the whole answer, and `truncated` says whether more follow."""
    source = open_source(store=store_dir)
    assert isinstance(source, OxigraphSource) and source.ranks is not None
    source.first_batch, source.growth, source.max_candidates = batches
    runs: list[str] = []
    run = source._run
    source._run = lambda *a, **k: runs.append("run") or run(*a, **k)  # type: ignore[method-assign]
    whole = _rows(reference, "papers-using", params)
    result = run_named(source, "papers-using", params, limit=limit)
    assert [[compact(term) for term in row] for row in result.rows] == whole[:limit]
    assert result.truncated == (len(whole) > limit)
    if params == {"concept": "GAN gan"}:
        assert len(whole) == 22 and runs  # several papers, several concepts (case ties)
    source.close()


def test_the_index_orders_concepts_as_the_engine_sorts_them(
    store_dir: Path, reference: Source
) -> None:
    order = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
    PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
    SELECT ?c WHERE { ?c kg:paperCount ?paperCount ; skos:prefLabel ?label }
    ORDER BY DESC(?paperCount) LCASE(?label) ?c"""
    expected = [row["c"].value for row in reference.select(order)]
    index = RankIndex.open(store_dir)
    assert index is not None and index.usable
    assert index.ranked(None) == expected
    tasks = index.ranked(None, type_iri=KG + "Task")
    assert tasks == [c for c in expected if c in set(tasks)] and 0 < len(tasks) < len(expected)
    proposed = set(index.ranked(None, role=KG + "proposes"))
    truth = {row["c"].value for row in reference.select(f"SELECT ?c {{ ?p <{KG}proposes> ?c }}")}
    assert proposed == truth
    assert index.ranked(None, role=KG + "unknownRole") == expected  # not indexed: no filter
    index.close()


def test_the_index_orders_papers_newest_first_as_the_engine_does(
    store_dir: Path, reference: Source
) -> None:
    order = """PREFIX dcterms: <http://purl.org/dc/terms/>
    PREFIX schema: <https://schema.org/>
    SELECT ?paper WHERE { ?paper a schema:ScholarlyArticle .
      OPTIONAL { ?paper dcterms:title ?title } OPTIONAL { ?paper schema:datePublished ?year } }
    ORDER BY DESC(?year) ?title ?paper"""
    expected = [row["paper"].value for row in reference.select(order)]
    index = RankIndex.open(store_dir)
    assert index is not None and index.usable["papers"]
    assert index.ranked_papers(None) == expected
    code = "https://schema.org/codeRepository"
    with_code = index.ranked_papers(None, having=code)
    truth = {row["p"].value for row in reference.select(f"SELECT ?p {{ ?p <{code}> ?r }}")}
    assert set(with_code) == truth and with_code == [p for p in expected if p in truth]
    index.close()


@pytest.mark.parametrize("text", ["diffusion", "ß", "SS", "Σ", "net", "n", "", '"', "gan-3"])
def test_substring_candidates_hold_every_label_that_contains_the_text(
    store_dir: Path, reference: Source, text: str
) -> None:
    """The trigram index (three characters and more) and the scan (fewer) miss nothing that
    SPARQL's CONTAINS(LCASE(label), LCASE(text)) finds."""
    query = """PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
    PREFIX kg: <https://w3id.org/paperkg/ontology#>
    SELECT DISTINCT ?c WHERE { ?c kg:paperCount ?n ; skos:prefLabel|skos:altLabel ?l .
    FILTER(CONTAINS(LCASE(?l), LCASE(?text))) }"""
    truth = {row["c"].value for row in reference.select(query, {"text": text})}
    index = RankIndex.open(store_dir)
    assert index is not None
    found = index.ranked(None, contains=text)
    assert truth <= set(found)
    if text in ("diffusion", "net", "n"):
        assert set(found) == truth and truth
    index.close()


def test_another_writer_makes_the_store_skip_its_indexes(graph: Path, tmp_path: Path) -> None:
    """A read-write open by another tool (`oxigraph load`, `oxigraph serve`) may change the data:
    the indexes are then not trusted, and the answers still come (by scanning)."""
    target = tmp_path / "graph.db"
    load_store(target, graph)
    with open_source(store=target) as source:
        assert isinstance(source, OxigraphSource) and source.ranks and source.indexed
        before = _rows(source, "search", {"text": "gan"})
    store = ox.Store(str(target))
    late = ox.NamedNode(EX + "late")
    store.add(ox.Quad(late, ox.NamedNode(KG + "paperCount"), ox.Literal(99)))
    store.add(
        ox.Quad(
            late,
            ox.NamedNode("http://www.w3.org/2004/02/skos/core#prefLabel"),
            ox.Literal("Gan added later"),
        )
    )
    store.add(
        ox.Quad(
            late,
            ox.NamedNode(RDF_TYPE),
            ox.NamedNode(KG + "Method"),
        )
    )
    del store
    gc.collect()
    assert RankIndex.open(target) is None
    with open_source(store=target) as source:
        assert isinstance(source, OxigraphSource)
        assert source.ranks is None and not source.indexed
        after = _rows(source, "search", {"text": "gan"})
    assert after[0][1] == "Gan added later" and after[1:] == before[: len(after) - 1]


def test_an_append_reranks_the_whole_store(graph: Path, tmp_path: Path) -> None:
    target = tmp_path / "graph.db"
    load_store(target, graph)
    extra = tmp_path / "extra.ttl"
    extra.write_text(
        f'<{EX}top> a <{KG}Task> ; <http://www.w3.org/2004/02/skos/core#prefLabel> "Top task" ;'
        f" <{KG}paperCount> 1000 .\n",
        encoding="utf-8",
    )
    load_store(target, extra, replace=False)
    with open_source(store=target) as source:
        assert _rows(source, "top-concepts", {"type": "Task"})[0][1] == "Top task"
        assert isinstance(source, OxigraphSource) and source.ranks is not None


def test_a_concept_with_two_ranks_turns_the_index_off(tmp_path: Path) -> None:
    """Two paper counts (graphs merged by hand) give a concept no one place in the order."""
    store = ox.Store()
    c = ox.NamedNode(EX + "c")
    store.add(ox.Quad(c, ox.NamedNode(KG + "paperCount"), ox.Literal(1)))
    store.add(ox.Quad(c, ox.NamedNode(KG + "paperCount"), ox.Literal(2)))
    store.add(ox.Quad(c, ox.NamedNode(RDF_TYPE), ox.NamedNode(KG + "Method")))
    store.add(
        ox.Quad(c, ox.NamedNode("http://www.w3.org/2004/02/skos/core#prefLabel"), ox.Literal("C"))
    )
    index = RankIndex.build(store, data_graphs(store), tmp_path / RANK_FILE)
    assert not index.usable["concepts"]
    source = OxigraphSource(store, "merged", index)
    assert run_named(source, "top-concepts", {}).rows  # answered by a plain run


def test_a_file_loaded_into_oxigraph_in_memory_has_the_rank_index(
    graph: Path, reference: Source
) -> None:
    source = open_source(graph, engine="oxigraph")
    assert isinstance(source, OxigraphSource) and source.ranks is not None
    assert _rows(source, "top-concepts", {}) == _rows(reference, "top-concepts", {})


def test_a_ranked_tag_must_match_the_query() -> None:
    body = "SELECT ?c WHERE { ?c ?p ?paperCount ; ?q ?label }\n"
    order = "ORDER BY DESC(?paperCount) LCASE(?label) ?c\n"
    ok = queries.parse("t", f"# T.\n# @ranked ?c\n{body}{order}LIMIT 5\n")
    assert ok.ranked == queries.Ranked("c", None, 5)
    with pytest.raises(ValueError, match="sort by"):
        queries.parse("t", f"# T.\n# @ranked ?c\n{body}ORDER BY ?c\nLIMIT 5\n")
    with pytest.raises(ValueError, match="LIMIT"):
        queries.parse("t", f"# T.\n# @ranked ?c\n{body}{order}")
    with pytest.raises(ValueError, match="sort by"):
        queries.parse("t", f"# T.\n# @ranked ?c\n{body}{order.replace('?c', '?cx')}LIMIT 5\n")


# Invented labels whose order needs care: case ties, non-ASCII letters whose lowercase differs
# from ASCII rules (dotted capital I, sharp s, final sigma), equal counts, an IRI tie-break.
ORDER_LABELS = [
    ("a", 3, "Beta"), ("b", 3, "beta"), ("c", 3, "ALPHA"), ("d", 5, "Zeta"), ("e", 5, "zeta"),
    ("f", 3, "İstanbul"), ("g", 3, "istanbul"), ("h", 3, "STRAßE"), ("i", 3, "strasse"),
    ("j", 3, "ΟΔΟΣ"), ("k", 3, "οδος"), ("l", 1, "Élan"), ("m", 1, "elan"), ("n", 1, "Ωmega"),
    ("o", 3, "a \"quoted\" label"), ("p", 2, "x"), ("p2", 2, "X"),
]


def _ordering_store(extra: list[ox.Quad] = ()) -> ox.Store:  # type: ignore[assignment]
    store = ox.Store()
    for name, count, label in ORDER_LABELS:
        c = ox.NamedNode(EX + name)
        store.add(ox.Quad(c, ox.NamedNode(KG + "paperCount"), ox.Literal(count)))
        store.add(ox.Quad(c, ox.NamedNode(SKOS + "prefLabel"), ox.Literal(label)))
    store.extend(extra)
    return store


def _q(name: str, prop: str, value: ox.Literal, graph: str | None = None) -> ox.Quad:
    named = ox.NamedNode(EX + graph) if graph else ox.DefaultGraph()
    return ox.Quad(ox.NamedNode(EX + name), ox.NamedNode(prop), value, named)


COUNT, LABEL = KG + "paperCount", SKOS + "prefLabel"
DECIMAL = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")


@pytest.mark.parametrize("extra", [
    [],
    [_q("a", COUNT, ox.Literal(9))],  # a second count: the concept repeats, as in the engine's
    # What the engine sorts itself: a decimal count, a language tag, a named graph.
    [_q("q", COUNT, ox.Literal("2.5", datatype=DECIMAL)), _q("q", LABEL, ox.Literal("q"))],
    [_q("r", COUNT, ox.Literal(2)), _q("r", LABEL, ox.Literal("R", language="en"))],
    [_q("s", COUNT, ox.Literal(4), "g"), _q("s", LABEL, ox.Literal("S"), "g")],
])
def test_the_concepts_are_sorted_as_the_engine_sorts_them(extra: list[ox.Quad]) -> None:
    store = _ordering_store(extra)
    graphs = data_graphs(store)
    engine = ranks_module._order(store, graphs, ranks_module._RANK_QUERY)
    ours = ranks_module._concept_sort(store, graphs)
    assert list(ours.ranks.items()) == list(engine[0].items()) and ours.repeated == engine[1]
    assert (ranks_module._concept_rows(store, graphs) is None) == (len(extra) == 2)
