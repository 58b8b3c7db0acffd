"""Papers kept on disk while a build runs (`kg.ingest.shelf`, issue 14): the same papers, in
the same order, and the same graph as papers held in a list."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from kg import build
from kg.build import extract_corpus, link_corpus
from kg.ingest.shelf import PaperIndex, PaperShelf, papers_by_id
from kg.rdf.build import build_triples
from kg.rdf.sample import sample_corpus
from kg.types import Extraction, Paper


def invented() -> list[Paper]:
    return [
        Paper("p1", "Café au lait: an abstract with non-ASCII text.", title="One",
              authors=("Ada Lovelace", "Alan Turing"), year=2024, keywords=("graphs",)),
        Paper("p2", None, title="No abstract"),
        Paper("p1", "A second record with the first one's id.", title="Again"),
        Paper("p3", "x" * 100_000, links=("https://github.com/example/x",)),
    ]


def test_every_field_of_a_paper_comes_back() -> None:
    """A paper is shelved as the tuple of its fields: each one, of every type, is read back."""
    paper = Paper("p9", "An abstract.", title="T", keywords=("k1", "k2"), authors=("A B",),
                  year=-12, venue="V", url="https://example.org/p9", status="oral",
                  collection="C", source="in.json", record=7, links=("https://x.org/y",),
                  doi="10.1/x", arxiv_id="1706.03762", subjects=("cs.LG",),
                  extra=(("email", "a@b.c"),))
    back = PaperShelf([paper])[0]
    assert back == paper and type(back) is Paper
    assert [getattr(back, f.name) for f in fields(Paper)] == [
        getattr(paper, f.name) for f in fields(Paper)]


def test_a_shelf_gives_back_equal_papers_in_order_by_index_slice_and_iteration() -> None:
    papers = invented()
    shelf = PaperShelf(iter(papers))  # any iterable, read once
    assert len(shelf) == 4
    assert list(shelf) == papers
    assert [shelf[i] for i in range(4)] == papers
    assert shelf[-1] == papers[-1] and shelf[1:3] == papers[1:3] and shelf[::-2] == papers[::-2]
    assert shelf[0] is not shelf[0]  # read from the file on every access, not held
    with pytest.raises(IndexError):
        shelf[4]
    with pytest.raises(IndexError):
        shelf[-5]


def test_by_id_is_the_dict_by_id_without_holding_the_papers() -> None:
    papers = invented()
    shelf = PaperShelf(papers)
    expected = {p.id: p for p in papers}
    assert papers_by_id(shelf) is shelf.by_id
    assert dict(shelf.by_id) == expected  # the last paper of an id
    assert list(shelf.by_id) == list(expected) == ["p1", "p2", "p3"]  # first-seen order
    assert "p2" in shelf.by_id and "p4" not in shelf.by_id and len(shelf.by_id) == 3
    assert papers_by_id(papers) == expected


def test_by_id_reads_a_paper_once_for_consecutive_lookups_of_it() -> None:
    reads: list[int] = []

    class Counted(list[Paper]):
        def __getitem__(self, i):  # type: ignore[no-untyped-def,override]
            reads.append(i)
            return super().__getitem__(i)

    papers = Counted([Paper("p1", "A."), Paper("p2", "B.")])
    by_id = PaperIndex(papers, {"p1": 0, "p2": 1})
    first = by_id["p2"]
    assert by_id["p2"] is first and reads == [1]  # the same paper again: not read again
    assert by_id["p1"].id == "p1" and by_id["p2"] is not None
    assert reads == [1, 0, 1]  # another paper between: read again


def test_an_empty_shelf() -> None:
    shelf = PaperShelf([])
    assert len(shelf) == 0 and list(shelf) == [] and dict(shelf.by_id) == {}


def test_the_graph_of_a_corpus_is_the_same_with_its_papers_on_a_shelf() -> None:
    corpus = sample_corpus()
    whole = [str(t) for t in build_triples(corpus)]
    shelved = replace(sample_corpus(), papers=PaperShelf(corpus.papers))
    assert [str(t) for t in build_triples(shelved)] == whole


def test_canonicalisation_from_a_shelf_makes_the_same_corpus_and_graph() -> None:
    """Every corpus rule (senses, variants, hygiene, names, origins) reads the papers from the
    shelf as `kg build` gives them; the concepts, links and triples are those of a list."""
    sample = sample_corpus()
    papers = [p for p in sample.papers if p.id]  # the graph keys an id-less paper otherwise
    extractions = {
        p.id: Extraction(p.id, mentions=tuple(
            m for link in sample.links if link.paper_id == p.id for m in link.mentions))
        for p in papers}
    held = link_corpus(papers, extractions)
    shelved = link_corpus(PaperShelf(papers), extractions)
    assert held.links and shelved.links == held.links and shelved.concepts == held.concepts
    assert [str(t) for t in build_triples(shelved)] == [str(t) for t in build_triples(held)]


def test_extraction_reads_a_shelf_a_slice_at_a_time_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    papers = [Paper(f"p{i}", f"We train a graph neural network on dataset D{i}.", title=f"T{i}")
              for i in range(3)] + [Paper("none", None, title="No abstract")]
    held = extract_corpus(papers, n_process=1, cache=tmp_path)  # fills the cache
    monkeypatch.setattr(build, "CACHE_READ_BATCH", 2)  # slices of 2, the last one shorter
    shelved = extract_corpus(PaperShelf(papers), n_process=1, cache=tmp_path)
    assert list(shelved) == list(held) == ["p0", "p1", "p2"]
    assert shelved == held
    assert extract_corpus(PaperShelf(papers), n_process=1) == held  # and without a cache
