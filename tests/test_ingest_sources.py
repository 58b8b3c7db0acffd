"""Exports of reference managers and scholarly APIs, in the shapes those tools write, read into
exactly the right papers (kg.ingest, kg.ingest.tables).

tests/fixtures/formats/ holds the same six papers in every format (expected.json lists them),
plus the awkward records each tool produces: a missing or null abstract, a null record in a
batch, a non-ASCII author, LaTeX in arXiv metadata.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kg.ingest import IngestReport, read_papers
from kg.ingest.ids import content_id
from kg.types import Paper

FORMATS = Path(__file__).parent / "fixtures" / "formats"
EXPECTED: list[dict[str, Any]] = json.loads((FORMATS / "expected.json").read_text())
ZOTERO_KEYS = ["7WQJXZ2K", "BX3CKQ9A", "H2ZK8V4M", "Q8RN4CUE", "TK4VZP3S", "XJ6H9E2D"]
OPENALEX_IDS = ["W2963403868", "W2896457183", "W2194775991", "W1522301498", "W2099471712",
                "W3100572490"]  # fmt: skip
S2_IDS = ["204e3073870fae3d05bcbc2f6a8e263d9b72e776", "df2b0e26d0599ce3e70df8a9da02e51594e0e992",
          "2c03df8b48bf3fa39054345bafabfeff15bfd11d", "a6cb366736791bcccc5c8639de5a8f9636bf87e8",
          "54e325aee6b2d476bbbb88615ac15e251c6e8214", "5c126ae3421f05768d8edd97ecd44b1364e2c99a"]
OPENREVIEW_IDS = ["Vx3jT9Gk2f", "Bk8sR0yQp1", "Rs4Lm2kZ0a", "8gmWwjFyLj", "Ux6wQn2Pb7",
                  "Kp9fYt3Wd4"]  # fmt: skip
ARXIV_IDS = [p["arxiv"] for p in EXPECTED]
CSL_IDS = [f"http://zotero.org/users/local/x4Hq2mPb/items/{k}" for k in ZOTERO_KEYS]
BIB_KEYS = ["vaswani2017", "devlin2019", "he2016", "kingma2015", "goodfellow2014", "ho2020"]
PMIDS = [str(30000000 + i) for i in range(6)]
RIS_IDS = [content_id(p["abstract"]) for p in EXPECTED]  # Zotero's RIS carries no id

# file -> (ids of the six papers, what the format carries: doi, arxiv, venue, year)
CASES: dict[str, tuple[list[str], set[str]]] = {
    "zotero.csv": (ZOTERO_KEYS, {"doi", "arxiv", "venue", "year"}),
    "zotero_csl.json": (CSL_IDS, {"doi", "arxiv", "venue", "year"}),
    "zotero.ris": (RIS_IDS, {"doi", "arxiv", "venue", "year"}),
    "zotero.bib": (BIB_KEYS, {"doi", "arxiv", "venue", "year"}),
    "openalex_works.json": (OPENALEX_IDS, {"doi", "arxiv", "venue", "year"}),
    "openalex_part_000.gz": (OPENALEX_IDS, {"doi", "arxiv", "venue", "year"}),
    "s2_search.json": (S2_IDS, {"doi", "arxiv", "venue", "year"}),
    "s2_batch.json": (S2_IDS, {"doi", "arxiv", "venue", "year"}),
    "arxiv_snapshot.json": (ARXIV_IDS, {"arxiv", "year"}),
    "arxiv_api.atom": (ARXIV_IDS, {"arxiv", "year"}),
    "openreview_v2.json": (OPENREVIEW_IDS, {"year"}),
    "openreview_v1.json": (OPENREVIEW_IDS, set()),
    "pubmed.nbib": (PMIDS, {"doi", "venue", "year"}),
}


def read(name: str, report: IngestReport | None = None) -> list[Paper]:
    return list(read_papers([FORMATS / name], report=report))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_six_papers_are_read_exactly(name: str) -> None:
    ids, carried = CASES[name]
    papers = [p for p in read(name) if p.abstract]
    assert [p.id for p in papers] == ids
    for paper, expected in zip(papers, EXPECTED, strict=True):
        assert paper.title == expected["title"]
        assert paper.abstract == expected["abstract"]
        assert list(paper.authors) == expected["authors"]
        if "year" in carried:
            assert paper.year == expected["year"]
        assert paper.doi == (expected["doi"] if "doi" in carried else None)
        assert paper.arxiv_id == (expected["arxiv"] if "arxiv" in carried else None)
        if "venue" in carried:
            assert paper.venue


@pytest.mark.parametrize("name", ["zotero.csv", "zotero_csl.json", "zotero.ris",
                                  "openalex_works.json", "s2_search.json"])  # fmt: skip
def test_a_record_without_abstract_keeps_its_metadata(name: str) -> None:
    lstm = read(name)[6]
    assert lstm.abstract is None
    assert lstm.title == "Long Short-Term Memory"
    assert lstm.authors == ("Sepp Hochreiter", "Jürgen Schmidhuber")
    assert lstm.year == 1997
    assert lstm.doi == "10.1162/neco.1997.9.8.1735"
    assert lstm.venue == "Neural Computation"


def test_zotero_csv_reads_its_own_columns() -> None:
    papers = read("zotero.csv")
    assert papers[0].url == "http://arxiv.org/abs/1706.03762"
    assert papers[0].subjects == ("cs.CL", "cs.LG")  # "Automatic Tags"
    assert papers[6].keywords == ("recurrent networks", "memory")  # "Manual Tags"
    assert papers[6].id == "LSTM9X2A"


def test_openalex_rebuilds_the_abstract_and_reads_keyword_objects() -> None:
    first = read("openalex_works.json")[0]
    assert first.subjects == ("Deep Learning",)  # keyword objects, by display_name
    assert first.venue == "Advances in Neural Information Processing Systems"
    assert first.url == "https://arxiv.org/abs/1706.03762"
    assert first.links == ("https://arxiv.org/pdf/1706.03762",)


def test_openalex_single_work_is_one_paper() -> None:
    [work] = read("openalex_work.json")
    assert work.id == "W2963403868" and work.abstract == EXPECTED[0]["abstract"]


def test_semantic_scholar_null_record_and_null_abstract() -> None:
    report = IngestReport()
    papers = read("s2_batch.json", report)
    assert len(papers) == 6
    [skipped] = report.skipped
    assert skipped.record == 3 and skipped.reason.startswith("record is null")
    search = read("s2_search.json")
    assert search[6].abstract is None and search[6].arxiv_id is None
    assert search[0].subjects == ("Computer Science",)


def test_semantic_scholar_dataset_lines_are_read() -> None:
    papers = read("s2_abstracts.jsonl")
    assert [p.id for p in papers] == ["13756489", "52967399", "206594692", "6628106", "1033682",
                                      "219955663"]  # fmt: skip
    assert [p.abstract for p in papers] == [p["abstract"] for p in EXPECTED]


def test_semantic_scholar_papers_dataset_has_metadata_without_abstracts() -> None:
    first, second = read("s2_papers_dataset.jsonl")
    assert (first.id, first.title, first.abstract) == ("13756489", "Attention is All you Need",
                                                       None)  # fmt: skip
    assert first.authors == ("Ashish Vaswani", "Noam M. Shazeer")
    assert (first.year, first.venue, first.arxiv_id, first.doi) == (
        2017, "Neural Information Processing Systems", "1706.03762", None)
    assert first.subjects == ("Computer Science",)
    # null venue, year and fields of study: the year comes from the publication date
    assert (second.year, second.venue, second.subjects) == (2020, None, ())


def test_arxiv_snapshot_is_json_lines_in_a_json_file_with_latex_decoded() -> None:
    report = IngestReport()
    papers = read("arxiv_snapshot.json", report)
    assert report.formats[str(FORMATS / "arxiv_snapshot.json")] == "json"
    assert papers[0].authors[6] == "Łukasz Kaiser"  # "{\\L}ukasz", in "A, B and C"
    assert papers[3].authors == ("Diederik P. Kingma", "Jimmy Ba")  # "A and B"
    assert papers[5].title == "Denoising Diffusion Probabilistic Models"  # line break in title
    assert papers[0].subjects == ("cs.CL", "cs.LG")
    assert papers[0].url == "https://arxiv.org/abs/1706.03762"


def test_arxiv_atom_feed() -> None:
    first = read("arxiv_api.atom")[0]
    assert first.url == "http://arxiv.org/abs/1706.03762v2"
    assert first.links == ("http://arxiv.org/pdf/1706.03762v2",)
    assert first.subjects == ("cs.CL", "cs.LG")


def test_openreview_venue_pdf_and_forum() -> None:
    v2 = read("openreview_v2.json")[0]
    assert v2.venue == "ICLR 2017 poster"
    assert v2.url == "https://openreview.net/forum?id=Vx3jT9Gk2f"
    assert v2.links == ("https://openreview.net/pdf/Vx3jT9Gk2f.pdf",)
    v1 = read("openreview_v1.json")[0]
    assert (v1.venue, v1.year) == ("ICLR 2020", 2020)


def test_gzip_is_found_by_its_magic_number_whatever_the_name(tmp_path: Path) -> None:
    renamed = tmp_path / "works_page"
    renamed.write_bytes(gzip.compress((FORMATS / "openalex_works.json").read_bytes()))
    assert [p.id for p in read_papers([renamed])][:6] == OPENALEX_IDS


def test_a_directory_is_read_as_its_supported_files(tmp_path: Path) -> None:
    for name in ("zotero.ris", "openreview_v2.json"):
        shutil.copy(FORMATS / name, tmp_path / name)
    (tmp_path / "sub").mkdir()
    shutil.copy(FORMATS / "pubmed.nbib", tmp_path / "sub" / "pubmed.nbib")
    (tmp_path / "notes.dat").write_text("not an input")
    papers = list(read_papers([tmp_path]))
    assert [p.source for p in papers] == (
        [str(tmp_path / "openreview_v2.json")] * 6 + [str(tmp_path / "sub" / "pubmed.nbib")] * 6
        + [str(tmp_path / "zotero.ris")] * 7
    )


def test_ris_and_medline_saved_as_txt_are_recognised(tmp_path: Path) -> None:
    for name in ("zotero.ris", "pubmed.nbib"):
        shutil.copy(FORMATS / name, tmp_path / (name + ".txt"))
        assert [p.title for p in read_papers([tmp_path / (name + ".txt")])][:6] == [
            p["title"] for p in EXPECTED
        ]
