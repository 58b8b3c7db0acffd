"""The real corpora in ../shared/data read completely (kg.ingest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.ingest import IngestReport, read_papers

pytestmark = pytest.mark.shared


def test_all_paperlists_are_read_with_nothing_skipped(shared_data: Path) -> None:
    paths = sorted((shared_data / "paperlists").glob("*.json.gz"))
    assert len(paths) == 69
    report = IngestReport()
    papers = list(read_papers(paths, report=report))

    assert report.read == 35_108
    assert report.skipped == []
    # Ids repeat across files (numeric ids of different venues): renamed, never dropped; one
    # record of ijcai2021 is byte-identical to the one before it and is merged.
    assert len(papers) == report.read - report.merged
    assert len({p.id for p in papers}) == len(papers)
    assert report.merged == 1 and report.renamed > 0
    assert sum(p.abstract is not None for p in papers) >= 35_060

    colm = [p for p in papers if p.source.endswith("colm2025.json.gz")]
    assert len(colm) == 418
    assert {(p.venue, p.year, p.collection) for p in colm} == {("COLM", 2025, "COLM 2025")}
    assert all(p.links and p.extra for p in colm)


def test_the_iclr_text_corpus(shared_data: Path) -> None:
    papers = list(read_papers([shared_data / "iclr2025_abstracts.txt"]))
    assert len(papers) == 19
    assert {p.collection for p in papers} == {"ICLR 2025 Papers"}
    assert all(p.abstract and p.id.startswith("h-") for p in papers)
    assert "un- derstanding" in (papers[1].abstract or "")  # PDF artefacts are kept (offsets)
