"""Each input format read into `Paper`s, with all its metadata (kg.ingest)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from kg.ingest import IngestReport, read_papers
from kg.ingest.ids import content_id
from kg.types import Paper

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def read(*names: str) -> list[Paper]:
    return list(read_papers([str(FIXTURES / name) for name in names]))


def gzipped(name: str, tmp_path: Path, new_name: str | None = None) -> Path:
    target = tmp_path / (new_name or name + ".gz")
    with open(FIXTURES / name, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


def test_text_heading_names_the_collection_and_is_not_a_paper() -> None:
    papers = read("abstracts.txt")
    assert [p.record for p in papers] == [2, 3, 4]  # paragraph numbers count the heading
    assert {p.collection for p in papers} == {"Tiny Test Papers"}
    assert papers[0].abstract == (
        "We introduce the Long Question Coreference Adaptation (LQCA) method for long-context "
        "question answering with large language models (LLMs)."
    )
    assert all(p.title is None and p.id.startswith("h-") for p in papers)


def test_text_is_cleaned_but_pdf_hyphenation_is_kept() -> None:
    second = read("abstracts.txt")[1]
    assert second.abstract == (
        "In this work, we present ChatQA 2, a Llama 3.0-based model with a 128K context window "
        "for long context un- derstanding & retrieval-augmented generation (RAG)."
    )
    assert read("abstracts.txt")[2].abstract == (
        "Diffusion models generate images; we study their sample efficiency on CIFAR-10."
    )


def test_text_without_heading_is_named_after_the_file() -> None:
    papers = read("no_heading.txt")
    assert [p.record for p in papers] == [1, 2]
    assert {p.collection for p in papers} == {"no_heading"}


def test_json_keeps_every_field() -> None:
    first, second, third = read("papers.json")
    assert first.id == "p1"
    assert first.title == "Flash3D: Feed-Forward 3D Reconstruction"
    assert first.status == "Poster"
    assert first.keywords == (
        "Novel View Synthesis",
        "3D Gaussian Splatting",
        "novel view synthesis",
    )
    assert first.authors == ("Stanislaw Szymanowicz", "Eldar Insafutdinov")
    assert first.url == "https://openreview.net/forum?id=p1"
    assert first.links == (
        "https://github.com/example/flash3d",
        "https://arxiv.org/abs/2406.04343",
        "https://openreview.net/forum?id=p1",
    )
    # Every other field, stringified, in record order.
    assert first.extra == (
        ("track", "main"),
        ("gs_citation", "42"),
        ("rating_avg", "[5.5, 0.5]"),
        ("award", "true"),
        ("homepage", ";https://eldar.example.org/"),
    )
    assert (first.source, first.record) == (str(FIXTURES / "papers.json"), 1)

    assert second.id == "17"  # a numeric id, stringified
    assert second.abstract is None  # no abstract: still a paper, metadata kept
    assert second.authors == ("Ada Lovelace", "Charles Babbage")
    assert second.keywords == ("analytical engine", "programs")
    assert (second.year, second.venue, second.url) == (1843, "Notes", "https://example.org/notes")

    assert third.id == content_id("transformers are all you need.")
    assert third.abstract == "Transformers are all you need."


def test_venue_and_year_come_from_the_file_name_when_the_record_has_none(
    tmp_path: Path,
) -> None:
    first, second = list(read_papers([gzipped("colm2025.json", tmp_path)]))
    assert (first.venue, first.year, first.collection) == ("COLM", 2025, "COLM 2025")
    assert (second.venue, second.year, second.collection) == ("COLM workshop", 2024, "COLM 2025")


def test_jsonl_reads_line_by_line_and_numbers_records_by_line() -> None:
    report = IngestReport()
    papers = list(read_papers([FIXTURES / "papers.jsonl"], report=report))
    assert [(p.id, p.record) for p in papers] == [("j1", 1), ("j4", 5), ("j6", 7)]
    j1, j4, j6 = papers
    assert j1.abstract == "An HTML abstract with entities & tags."
    assert j1.keywords == ("a", "b")
    assert j1.extra == (("extra_field", '{"nested": [1, 2]}'),)
    assert j4.abstract is None
    assert j6.title == "Café — unicode"
    assert j6.abstract == "Café is decomposed here."  # NFC: one code point for é
    assert [s.record for s in report.skipped] == [3, 4, 6]


def test_csv_and_tsv() -> None:
    report = IngestReport()
    papers = list(read_papers([FIXTURES / "papers.csv", FIXTURES / "papers.tsv"], report=report))
    assert [p.id for p in papers] == [
        "c-1",
        "c-2",
        content_id("Hashed title only"),
        "c-5",
        "t-1",
        "t-2",
    ]
    c1 = papers[0]
    assert c1.title == "Attention, again"
    assert c1.abstract == "We revisit attention; it still works. Across lines, too."
    assert c1.keywords == ("attention", "transformers")
    assert c1.authors == ("A. Vaswani", "N. Shazeer")
    assert (c1.year, c1.venue, c1.status) == (2017, "NeurIPS", "Oral")
    assert c1.extra == (("pages", "1-10"),)
    assert papers[1].abstract is None and papers[1].year == 2018
    assert papers[3].record == 5  # row numbers, the bad row 4 counted
    assert papers[4].abstract == "Abstract with a, comma inside."
    assert papers[4].keywords == ("k1", "k2")


def test_bibtex() -> None:
    report = IngestReport()
    papers = list(read_papers([FIXTURES / "papers.bib"], report=report))
    assert [(p.id, p.record) for p in papers] == [
        ("snell2017prototypical", 1),
        ("lovelace1843", 2),
        ("G{\\'e}rard2021", 4),
    ]
    snell, lovelace, gerard = papers
    assert snell.title == "Prototypical Networks for Few-shot Learning"
    assert snell.abstract == (
        "We propose prototypical networks for few-shot classification, evaluated on Omniglot "
        "and mini-ImageNet with Schrödinger-style 50% gains."
    )
    assert snell.authors == ("Jake Snell", "Kevin Swersky", "Richard Zemel")
    assert snell.keywords == ("few-shot learning", "metric learning", "prototypes")
    assert snell.venue == "International Conference on Learning Representations"  # @string
    assert snell.year == 2017
    assert snell.url == "https://openreview.net/forum?id=B1-Hhnslg"
    assert snell.extra == (("entrytype", "inproceedings"), ("note", "Withdrawn"))
    assert lovelace.abstract is None  # entries without an abstract are papers too
    assert lovelace.authors == ("Ada Lovelace", "Barnes and Noble")
    assert lovelace.venue == "Scientific Memoirs"
    assert gerard.title == "Café models"
    assert gerard.authors == ("Jean Gérard",)
    assert [(s.record, s.reason) for s in report.skipped] == [
        (3, "entry cannot be parsed as BibTeX (check its braces, commas and key)")
    ]


@pytest.mark.parametrize(
    "name",
    ["abstracts.txt", "papers.json", "papers.jsonl", "papers.csv", "papers.tsv", "papers.bib"],
)
def test_gzipped_input_reads_the_same(name: str, tmp_path: Path) -> None:
    plain = read(name)
    packed = list(read_papers([gzipped(name, tmp_path)]))
    strip = [(p.id, p.title, p.abstract, p.keywords, p.authors, p.links, p.extra) for p in plain]
    assert strip == [
        (p.id, p.title, p.abstract, p.keywords, p.authors, p.links, p.extra) for p in packed
    ]
    assert len(plain) > 1


def test_format_is_sniffed_when_the_extension_is_unknown(tmp_path: Path) -> None:
    target = tmp_path / "records.data"
    shutil.copy(FIXTURES / "papers.json", target)
    gz = gzipped("papers.jsonl", tmp_path, "lines.dump.gz")
    assert [p.id for p in read_papers([target])] == [p.id for p in read("papers.json")]
    assert [p.id for p in read_papers([gz])] == ["j1", "j4", "j6"]


def test_ids_are_stable_across_runs_and_input_order_is_kept() -> None:
    names = ("no_heading.txt", "papers.json", "abstracts.txt")
    first = [(p.id, p.source, p.record) for p in read(*names)]
    assert first == [(p.id, p.source, p.record) for p in read(*names)]
    assert first[0][0] == content_id(
        "Graph neural networks (GNNs) learn node representations by message passing."
    )
    assert [Path(source).name for _, source, _ in first] == ["no_heading.txt"] * 2 + [
        "papers.json"
    ] * 3 + ["abstracts.txt"] * 3


def test_path_objects_are_kept_as_given() -> None:
    paper = next(read_papers([FIXTURES / "papers.json"]))
    assert paper.source == str(FIXTURES / "papers.json")


def test_a_single_path_and_a_byte_order_mark_are_fine(tmp_path: Path) -> None:
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf\nBOM Papers\n\nOne abstract.\n")
    [paper] = read_papers(str(bom))
    assert (paper.collection, paper.abstract, paper.record) == ("BOM Papers", "One abstract.", 2)
