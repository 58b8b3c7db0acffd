"""Loading a grown graph by its difference (`kg.query.delta`, `kg.query.blocks`): the store
then holds exactly what a whole load of the new file gives (every quad, the label index, the
rank and link indexes), and it falls back to a whole load, saying why, whenever it cannot tell.
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path

import pyoxigraph as ox
import pytest

import kg.build as build_module
import kg.query.delta as delta_module
import kg.query.store as store_module
from kg.build import run_build
from kg.query.blocks import SubjectCheck, Unsplittable, split_bytes, subject_key
from kg.query.delta import RECORD_DATA, RECORD_META
from kg.query.links import LINK_FILE
from kg.query.ranks import RANK_FILE
from kg.query.store import LoadReport, load_store

HEAD = """@prefix ex: <http://example.org/> .
@prefix kg: <https://w3id.org/paperkg/ontology#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix schema: <https://schema.org/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
"""


@pytest.fixture(autouse=True)
def any_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """These graphs are small: any share of them may change and still go by difference."""
    monkeypatch.setattr(delta_module, "DELTA_LIMIT", 1.0)


# What each load by difference's `kg.query.reindex.update_indexes` returned in this test (the
# two indexes, or why they were built whole).
UPDATES: list[object] = []


@pytest.fixture(autouse=True)
def index_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    UPDATES.clear()
    real = store_module.update_indexes

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        UPDATES.append(real(*args, **kwargs))
        return UPDATES[-1]

    monkeypatch.setattr(store_module, "update_indexes", spy)


def _paper(n: int, concepts: list[str], title: str | None = None, year: int = 2024) -> str:
    links = " , ".join(f"ex:{c}" for c in concepts)
    return (f"ex:paper{n} a schema:ScholarlyArticle ;\n"
            f"\tdcterms:title \"{title or f'Invented paper {n}'}\" ;\n"
            f"\tschema:datePublished {year} ;\n"
            f"\tkg:mentions {links} ;\n"
            f"\tkg:proposes ex:{concepts[0]} .\n")


def _concept(name: str, count: int, label: str | None = None, alt: str | None = None) -> str:
    alt_line = f"\tskos:altLabel \"{alt}\" ;\n" if alt else ""
    return (f"ex:{name} a kg:Method ;\n{alt_line}"
            f"\tkg:paperCount {count} ;\n"
            f"\tskos:prefLabel \"{label or name.replace('_', ' ')}\" .\n")


def _graph(papers: dict[int, list[str]], labels: dict[str, str] | None = None,
           alts: dict[str, str] | None = None) -> str:
    """An invented graph in the shape `kg build` writes: subjects sorted, one block each."""
    counts: dict[str, int] = {}
    for concepts in papers.values():
        for c in concepts:
            counts[c] = counts.get(c, 0) + 1
    blocks = [_concept(c, n, (labels or {}).get(c), (alts or {}).get(c))
              for c, n in counts.items()]
    blocks += [_paper(n, cs) for n, cs in papers.items()]
    return HEAD + "".join(sorted(blocks))


BASE = {
    1: ["sparse_attention", "longformer"],
    2: ["diffusion_model", "unet"],
    3: ["diffusion_model", "sparse_attention"],
    4: ["graph_network", "message_passing"],
    5: ["unet", "segmentation"],
    6: ["retrieval", "sparse_attention"],
    7: ["contrastive_loss", "retrieval"],
    8: ["message_passing", "graph_network", "unet"],
}


def _write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _contents(store_dir: Path) -> tuple[set[str], list[tuple[str, list[tuple[object, ...]]]]]:
    """Every quad of the store (the label index too; blank nodes unnamed) and the rows of its
    rank and link indexes (all but the store files they were sealed with)."""
    store = ox.Store.read_only(str(store_dir))
    quads = {re.sub(r"_:\w+", "_:b", str(q)) for q in store}  # a load names blank nodes anew
    del store
    tables = []
    for name in (RANK_FILE, LINK_FILE):
        db = sqlite3.connect(f"file:{store_dir / name}?mode=ro", uri=True)
        for (table,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'label_text%'"
            " ORDER BY name"
        ):
            rows = [r for r in db.execute(f"SELECT * FROM {table}")
                    if not (table == "meta" and r[0] == "fingerprint")]
            tables.append((f"{name}:{table}", sorted(rows, key=repr)))
        db.close()
    return quads, tables


def _grow(tmp_path: Path, old: str, new: str, name: str = "g.ttl",
          updated: bool = True) -> tuple[LoadReport, Path]:
    """Load `old`, then `new` into the same store; also `new` alone into a store of its own.
    Returns the second load's report, having checked both stores hold the same (and that a
    load by difference updated the indexes rather than rebuilding them)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = tmp_path / "store"
    first = load_store(store, _write(tmp_path / f"old-{name}", old))
    assert not first.by_difference and first.note == ""
    updates = len(UPDATES)
    report = load_store(store, _write(tmp_path / name, new))
    if report.by_difference:
        assert isinstance(UPDATES[updates], str) != updated, UPDATES[updates]
    whole = load_store(tmp_path / "whole", tmp_path / name)
    assert report.triples == whole.triples
    assert _contents(store) == _contents(tmp_path / "whole")
    return report, store


def test_added_papers_are_loaded_by_difference(tmp_path: Path) -> None:
    grown = {**BASE, 9: ["sparse_attention", "new_method"], 10: ["diffusion_model", "unet"]}
    report, _ = _grow(tmp_path, _graph(BASE), _graph(grown))
    assert report.by_difference
    # Two new papers, one new concept, three counts changed: 6 new blocks, 3 gone.
    assert report.note.startswith("6 new or changed blocks, 3 gone; 3 subjects rewritten")
    assert "updated by difference" in report.summary()


def test_a_changed_paper_and_a_renamed_concept(tmp_path: Path) -> None:
    changed = {**BASE, 3: ["diffusion_model", "retrieval"]}
    report, store = _grow(
        tmp_path, _graph(BASE, alts={"unet": "U-Net"}),
        _graph(changed, labels={"unet": "UNet architecture"}, alts={"unet": "UNET"}),
    )
    assert report.by_difference
    # The label index follows the labels: the old keys are gone, the new ones there.
    found = ox.Store.read_only(str(store)).query(
        "SELECT ?k WHERE { GRAPH <https://w3id.org/paperkg/index> "
        "{ <http://example.org/unet> ?p ?k } } ORDER BY ?k")
    assert [row[0].value for row in found] == ["unet", "unet architecture"]


def test_a_removed_paper_and_a_concept_gone(tmp_path: Path) -> None:
    fewer = {n: cs for n, cs in BASE.items() if n != 7}  # contrastive_loss only there
    report, store = _grow(tmp_path, _graph(BASE), _graph(fewer))
    assert report.by_difference and "gone" in report.note
    left = ox.Store.read_only(str(store))
    assert not list(left.quads_for_pattern(ox.NamedNode("http://example.org/contrastive_loss"),
                                           None, None))


def test_the_same_file_again_changes_nothing(tmp_path: Path) -> None:
    report, _ = _grow(tmp_path, _graph(BASE), _graph(BASE))
    assert report.by_difference
    assert report.note == "0 new or changed blocks, 0 gone; 0 subjects rewritten, 0 blocks parsed"


def test_a_concept_ranked_anew_keeps_the_roles_of_papers_not_touched(tmp_path: Path) -> None:
    """A concept with no prefLabel is not ranked; given one, it is, and the roles of the papers
    that link it (not touched by the load) are found again."""
    old = _graph(BASE) + "ex:orphan kg:paperCount 1 .\nex:zpaper kg:proposes ex:orphan ;\n" \
        "\tkg:mentions ex:orphan .\n"
    new = old.replace("ex:orphan kg:paperCount 1 .", 'ex:orphan kg:paperCount 1 ;\n'
                      '\tskos:prefLabel "Orphan method" .')
    report, store = _grow(tmp_path, old, new)
    assert report.by_difference and report.note.endswith("1 subjects rewritten, 1 blocks parsed")
    db = sqlite3.connect(f"file:{store / RANK_FILE}?mode=ro", uri=True)
    roles = db.execute("SELECT role FROM concept_role JOIN concept USING (rank) "
                       "WHERE iri = 'http://example.org/orphan' ORDER BY role").fetchall()
    assert [r.rsplit("#", 1)[1] for (r,) in roles] == ["mentions", "proposes"]


def test_a_role_no_paper_keeps_leaves_a_concept_not_touched(tmp_path: Path) -> None:
    """Paper 5 proposed U-Net; it now neither proposes nor mentions it. U-Net's block is the same
    (its count as written), so only the paper is rewritten, but no paper proposes U-Net now."""
    new = _graph(BASE).replace("kg:mentions ex:unet , ex:segmentation ;\n\tkg:proposes ex:unet",
                               "kg:mentions ex:segmentation ;\n\tkg:proposes ex:segmentation")
    report, store = _grow(tmp_path, _graph(BASE), new)
    assert report.by_difference and "1 subjects rewritten" in report.note
    db = sqlite3.connect(f"file:{store / RANK_FILE}?mode=ro", uri=True)
    roles = db.execute("SELECT role FROM concept_role JOIN concept USING (rank) "
                       "WHERE iri = 'http://example.org/unet'").fetchall()
    assert [r.rsplit("#", 1)[1] for (r,) in roles] == ["mentions"]


def test_labels_beyond_ascii_and_a_newer_paper_are_ranked_anew(tmp_path: Path) -> None:
    grown = {**BASE, 9: ["straße_net", "İnet", "unet"], 10: ["Ωmega", "sparse_attention"]}
    new = _graph(grown).replace("Invented paper 10\" ;\n\tschema:datePublished 2024",
                                "Invented paper 10\" ;\n\tschema:datePublished 2025")
    report, _ = _grow(tmp_path, _graph(BASE, labels={"unet": "Ünet"}), new)
    assert report.by_difference


def test_indexes_are_built_whole_when_the_previous_cannot_be_updated(tmp_path: Path) -> None:
    """A decimal paper count (the engine sorts the concepts, no keys are kept), or a new paper
    that mentions a literal (the link index cannot hold it): the indexes are built whole."""
    decimal = _graph(BASE).replace("kg:paperCount 1 ", "kg:paperCount 1.0 ", 1)
    grown = _graph({**BASE, 9: ["unet", "new_method"]})
    report, _ = _grow(tmp_path / "a", decimal, grown.replace("kg:paperCount 1 ",
                                                             "kg:paperCount 1.0 ", 1),
                      updated=False)
    assert report.by_difference and "sorted by the engine" in str(UPDATES[-1])
    literal = grown.replace("kg:mentions ex:unet , ex:new_method",
                            'kg:mentions ex:unet , ex:new_method , "a literal"')
    report, _ = _grow(tmp_path / "b", _graph(BASE), literal, updated=False)
    assert report.by_difference and "not an IRI" in str(UPDATES[-1])


def test_a_rank_index_of_an_older_layout_is_rebuilt(tmp_path: Path) -> None:
    """A store whose rank index has no `concept_key` table (written before it existed): the
    load by difference builds the indexes whole, then updates them the next time."""
    store = tmp_path / "store"
    load_store(store, _write(tmp_path / "old.ttl", _graph(BASE)))
    db = sqlite3.connect(store / RANK_FILE)
    db.execute("DROP TABLE concept_key")
    db.commit()
    db.close()
    grown = {**BASE, 9: ["sparse_attention", "new_method"]}
    assert load_store(store, _write(tmp_path / "new.ttl", _graph(grown))).by_difference
    assert "cannot be read" in str(UPDATES[-1])
    load_store(tmp_path / "whole", tmp_path / "new.ttl")
    assert _contents(store) == _contents(tmp_path / "whole")
    more = {**grown, 10: ["unet", "new_method"]}
    assert load_store(store, _write(tmp_path / "more.ttl", _graph(more))).by_difference
    assert not isinstance(UPDATES[-1], str)


def test_gzipped_and_n_triples_files(tmp_path: Path) -> None:
    grown = {**BASE, 9: ["sparse_attention", "new_method"]}
    report, _ = _grow(tmp_path, _graph(BASE), _graph(grown), name="g.ttl.gz")
    assert report.by_difference
    old = ox.serialize(ox.parse(_graph(BASE).encode(), ox.RdfFormat.TURTLE),
                       format=ox.RdfFormat.N_QUADS).decode()
    new = ox.serialize(ox.parse(_graph(grown).encode(), ox.RdfFormat.TURTLE),
                       format=ox.RdfFormat.N_QUADS).decode()
    report, _ = _grow(tmp_path / "nt", old, new, name="g.nt")
    assert report.by_difference


def test_an_appended_tail_with_its_own_prefixes(tmp_path: Path) -> None:
    """`kg analyze` appends a comment and a Turtle document of its own (prefixes repeated),
    with more triples about subjects that already have a block."""
    tail = ("# analytics: 3 lines\n@prefix ex: <http://example.org/> .\n"
            "@prefix kg: <https://w3id.org/paperkg/ontology#> .\n"
            "ex:unet kg:community 1 .\n"
            "ex:unet a kg:Method .\n")  # again: counted once
    grown = {**BASE, 9: ["unet", "new_method"]}
    report, _ = _grow(tmp_path, _graph(BASE) + tail,
                      _graph(grown) + tail.replace("community 1", "community 2"))
    assert report.by_difference


@pytest.mark.parametrize(("change", "why"), [
    (lambda store: (store / RECORD_META).unlink(), "no record of the blocks"),
    (lambda store: (store / RECORD_DATA).write_bytes(
        b"x" + (store / RECORD_DATA).read_bytes()[1:]), "its block record is damaged"),
    (lambda store: (store / RECORD_META).write_text(json.dumps({"format": 0})),
     "its block record is of another format"),
])
def test_a_missing_or_damaged_record_loads_whole(tmp_path: Path, change, why) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "store"
    load_store(store, _write(tmp_path / "old.ttl", _graph(BASE)))
    change(store)
    grown = {**BASE, 9: ["sparse_attention", "new_method"]}
    report = load_store(store, _write(tmp_path / "new.ttl", _graph(grown)))
    assert not report.by_difference and why in report.note
    assert f"loaded whole: {why}" in report.summary()
    load_store(tmp_path / "whole", tmp_path / "new.ttl")
    assert _contents(store) == _contents(tmp_path / "whole")
    # The whole load wrote a record again: the next load goes by difference.
    assert load_store(store, tmp_path / "new.ttl").by_difference


def test_a_store_another_writer_changed_loads_whole(tmp_path: Path) -> None:
    store = tmp_path / "store"
    load_store(store, _write(tmp_path / "old.ttl", _graph(BASE)))
    writer = ox.Store(str(store))
    writer.add(ox.Quad(ox.NamedNode("http://example.org/x"), ox.NamedNode("http://example.org/p"),
                       ox.Literal("added by hand")))
    writer.flush()
    del writer
    report = load_store(store, _write(tmp_path / "new.ttl", _graph(BASE)))
    assert not report.by_difference and "the store changed" in report.note
    load_store(tmp_path / "whole", tmp_path / "new.ttl")
    assert _contents(store) == _contents(tmp_path / "whole")


def test_appending_drops_the_record(tmp_path: Path) -> None:
    store = tmp_path / "store"
    load_store(store, _write(tmp_path / "old.ttl", _graph(BASE)))
    extra = [ox.Triple(ox.NamedNode("http://example.org/x"), ox.NamedNode("http://example.org/p"),
                       ox.Literal("appended"))]
    load_store(store, extra, replace=False)
    assert not (store / RECORD_META).exists()
    report = load_store(store, tmp_path / "old.ttl")
    assert not report.by_difference and "no record" in report.note
    load_store(tmp_path / "whole", tmp_path / "old.ttl")
    assert _contents(store) == _contents(tmp_path / "whole")


def test_a_large_change_loads_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delta_module, "DELTA_LIMIT", 0.25)
    other = {n + 100: cs for n, cs in BASE.items()}
    report, _ = _grow(tmp_path, _graph(BASE), _graph(other))
    assert not report.by_difference and "of its blocks changed (more than" in report.note


def test_other_prefixes_load_whole(tmp_path: Path) -> None:
    new = _graph(BASE).replace("@prefix ex: <http://example.org/> .",
                               "@prefix ex: <http://example.org/> .\n@prefix o: <http://o.org/> .")
    report, _ = _grow(tmp_path, _graph(BASE), new)
    assert not report.by_difference and "other prefixes" in report.note


@pytest.mark.parametrize(("text", "why"), [
    ("_:b1 ex:p \"blank subject\" .\n", "not an IRI"),
    ("@base <http://example.org/> .\n", "directive other than a one-line prefix"),
    ('ex:long ex:p """two\nlines""" .\n', "long string"),
    ("ex:a ex:p ex:b ;\n# a comment\n\tex:q ex:c .\n", "comment line"),
])
def test_files_not_cut_into_blocks_load_whole(tmp_path: Path, text: str, why: str) -> None:
    report, _ = _grow(tmp_path, _graph(BASE) + text, _graph(BASE) + text)
    assert not report.by_difference and why in report.note
    with pytest.raises(Unsplittable, match=why):
        split_bytes((_graph(BASE) + text).encode())


def test_a_block_of_two_subjects_leaves_no_record(tmp_path: Path) -> None:
    """Two statements on one line cut into one block: the parse sees it, no record is kept,
    and the next load is whole."""
    odd = _graph(BASE) + 'ex:a ex:p "one" . ex:b ex:p "two" .\n'
    store = tmp_path / "store"
    load_store(store, _write(tmp_path / "old.ttl", odd))
    assert not (store / RECORD_META).exists()
    report, _ = _grow(tmp_path / "again", odd, odd.replace('"two"', '"three"'))
    assert not report.by_difference and "no record" in report.note


def test_blank_nodes_in_objects_are_checked() -> None:
    quads = list(ox.parse(b'@prefix ex: <http://example.org/> .\nex:a ex:p [ ex:q 1 ] .\n',
                          ox.RdfFormat.TURTLE))
    check = SubjectCheck(subject_key("http://example.org/a"))
    list(check.wrap(iter(quads)))
    assert not check.done()


def test_a_chunk_boundary_inside_a_block(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The file is read in chunks; a block cut by a chunk's end is joined again."""
    import kg.query.blocks as blocks_module

    path = _write(tmp_path / "g.ttl", _graph(BASE))
    whole = blocks_module.split_file(path)
    for size in (1, 7, 64, 333):
        monkeypatch.setattr(blocks_module, "CHUNK", size)
        assert blocks_module.split_file(path) == whole


def test_each_block_is_found_where_the_split_says(tmp_path: Path) -> None:
    """`Blocks.starts` / `sizes` give each statement's bytes (what a load by difference reads
    of an uncompressed file instead of cutting it again), CRLF line ends and blank lines too."""
    import kg.query.blocks as blocks_module

    text = _graph(BASE).replace("\n", "\r\n").replace(" .\r\n", " .\r\n\r\n", 3)
    path = _write(tmp_path / "g.ttl", text)
    blocks = blocks_module.split_file(path)
    data = path.read_bytes()
    found = [data[start : start + size] for start, size in zip(blocks.starts, blocks.sizes,
                                                                strict=True)]
    assert found == list(blocks_module.statements(path)) and len(found) == len(blocks) > 3


@pytest.mark.model
def test_kg_build_store_of_a_grown_corpus(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`kg build --store` on a corpus with papers added, one changed and one removed: the store
    is updated by difference and holds what a whole load of the graph gives."""
    papers = [
        {"id": "d1", "title": "Sparse attention for long documents",
         "abstract": "We propose SparseDoc, a sparse attention method for long-document "
                     "summarization. SparseDoc outperforms Longformer on the arXiv dataset."},
        {"id": "d2", "title": "Retrieval-augmented generation at scale",
         "abstract": "Retrieval-augmented generation (RAG) grounds large language models in "
                     "documents. We evaluate RAG on Natural Questions with exact match."},
        {"id": "d3", "title": "Graph networks for molecules",
         "abstract": "We use message passing neural networks to predict molecular properties "
                     "on the QM9 dataset, improving mean absolute error."},
    ]
    later = [
        papers[0],
        {**papers[1], "abstract": papers[1]["abstract"] + " RAG also improves F1 on TriviaQA."},
        {"id": "d4", "title": "Diffusion models for segmentation",
         "abstract": "We adapt denoising diffusion models to medical image segmentation and "
                     "report Dice scores on the BraTS dataset."},
    ]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(json.dumps(p) + "\n" for p in papers))
    second.write_text("".join(json.dumps(p) + "\n" for p in later))
    store, cache = tmp_path / "graph.db", tmp_path / "cache"
    reports: list[LoadReport] = []

    def loading(*args, **kwargs) -> LoadReport:  # type: ignore[no-untyped-def]
        reports.append(load_store(*args, **kwargs))
        return reports[-1]

    monkeypatch.setattr(build_module, "load_store", loading)
    run_build([first], tmp_path / "g.ttl", n_process=1, cache=cache, store=store)
    assert (store / RECORD_META).exists()
    run_build([second], tmp_path / "g.ttl", n_process=1, cache=cache, store=store)
    assert [r.by_difference for r in reports] == [False, True]
    whole = load_store(tmp_path / "whole", tmp_path / "g.ttl")
    assert not whole.by_difference
    assert _contents(store) == _contents(tmp_path / "whole")
    again = load_store(store, tmp_path / "g.ttl")
    assert again.by_difference and again.note.startswith("0 new or changed blocks")


def test_kg_load_says_how_it_loaded(tmp_path: Path, kg) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "store"
    graph = _write(tmp_path / "g.ttl", _graph(BASE))
    first = kg("load", graph, "--store", store)
    assert first.exit_code == 0 and "replaced with" in first.stdout
    assert "loaded whole" not in first.stdout  # a first load has nothing to compare with
    _write(graph, _graph({**BASE, 9: ["unet", "new_method"]}))
    second = kg("load", graph, "--store", store)
    assert second.exit_code == 0, second.output
    assert "updated by difference to" in second.stdout
    assert "new or changed blocks" in second.stdout
    (store / RECORD_META).unlink()
    third = kg("load", graph, "--store", store)
    assert "loaded whole: no record of the blocks it was loaded from" in third.stdout
