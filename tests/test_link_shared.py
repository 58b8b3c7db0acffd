"""Linking on the shared sample corpus: the build fills `Corpus.matches`, and the graph answers
"papers about any kind of diffusion model"."""

from __future__ import annotations

from pathlib import Path

from kg.build import build_corpus
from kg.ingest import read_papers
from kg.query import open_source, run_named
from kg.query.store import load_store
from kg.rdf.build import build_triples
from kg.vocab.gazetteer import Gazetteer
from kg.vocab.matching import SCHEMES


def test_sample_corpus_links_to_the_vocabularies(shared_data: Path, tmp_path: Path) -> None:
    corpus = build_corpus(read_papers([shared_data / "iclr2025_abstracts.txt"]), n_process=1)
    matches = corpus.matches
    assert len(matches) >= 30
    gazetteer = Gazetteer.load()
    for m in matches:
        assert m.concept_key in corpus.concepts
        assert any(m.target.startswith(s + "/") for s in SCHEMES)
        assert gazetteer.entries_for(m.target), m.target
    found = {(m.concept_key, m.target, m.exact) for m in matches}
    assert ("diffusion model", "https://paperswithcode.com/methods/category/diffusion-models",
            True) in found  # fmt: skip
    assert matches == sorted(matches, key=lambda m: (m.concept_key, m.target, m.source))

    store = tmp_path / "graph.db"
    load_store(store, build_triples(corpus))
    with open_source(store=store) as source:
        about = {str(r["paper"]) for r in run_named(
            source, "papers-about-kind", {"concept": "diffusion model"}).dicts()}
        using = {str(r["paper"]) for r in run_named(
            source, "papers-using", {"concept": "diffusion model"}).dicts()}
        assert using and about >= using
