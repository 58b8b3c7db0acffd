"""Bad records, duplicate ids and unusable files (kg.ingest)."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pytest

from kg.errors import InputError
from kg.ingest import DuplicateAction, IngestReport, Place, read_papers
from kg.ingest.ids import content_id

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"

# Each kind of bad record: (file, record number, reason it is skipped with).
BAD_RECORDS = [
    ("bad.json", 2, "field 'abstract' is a number, expected text"),
    ("bad.json", 3, "field 'keywords' is an object, expected a list of text or one ';'-"),
    ("bad.json", 4, "record is text, expected an object"),
    ("bad.json", 5, "empty record: no id, no title and no abstract"),
    ("bad.json", 6, "field 'year' is 'next year', expected a year like 2025"),
    ("bad.json", 7, "field 'abstract' is an object, expected text"),
    ("papers.jsonl", 3, "line is not valid JSON"),
    ("papers.jsonl", 4, "line is not valid UTF-8"),
    ("papers.jsonl", 6, "record is a list, expected an object"),
    ("bad_utf8.txt", 3, "paragraph is not valid UTF-8"),
    ("bad_utf8.csv", 2, "row is not valid UTF-8"),
    ("papers.csv", 4, "row has 11 cells but the header has 10"),
    ("papers.bib", 3, "entry cannot be parsed as BibTeX"),
]
GOOD: dict[str, list[str] | list[int]] = {
    "bad.json": ["ok1", "ok3"],
    "papers.jsonl": ["j1", "j4", "j6"],
    "bad_utf8.txt": [2, 4],  # records (text ids are hashes)
    "bad_utf8.csv": ["u1", "u3"],
    "papers.csv": ["c-1", "c-2", content_id("Hashed title only"), "c-5"],
    "papers.bib": ["snell2017prototypical", "lovelace1843", "G{\\'e}rard2021"],
}


@pytest.mark.parametrize(("name", "record", "reason"), BAD_RECORDS)
def test_bad_record_is_skipped_with_a_warning_and_good_records_are_kept(
    name: str, record: int, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = str(FIXTURES / name)
    report = IngestReport()
    with caplog.at_level(logging.WARNING, logger="kg.ingest"):
        papers = list(read_papers([path], report=report))

    skipped = [s for s in report.skipped if s.record == record]
    assert len(skipped) == 1 and skipped[0].source == path
    assert skipped[0].reason.startswith(reason)
    warnings = [r.getMessage() for r in caplog.records if r.name == "kg.ingest"]
    assert any(m.startswith(f"{path}, record {record}: skipped: {reason}") for m in warnings)
    assert len(warnings) == len(report.skipped)
    good = GOOD[name]
    got = [p.record for p in papers] if isinstance(good[0], int) else [p.id for p in papers]
    assert got == good
    assert report.read == len(papers)


@pytest.mark.parametrize(("name", "record", "reason"), BAD_RECORDS)
def test_strict_raises_on_the_first_bad_record(name: str, record: int, reason: str) -> None:
    path = str(FIXTURES / name)
    first_bad = min(r for n, r, _ in BAD_RECORDS if n == name)
    with pytest.raises(InputError) as info:
        list(read_papers([path], strict=True))
    assert info.value.exit_code == 2
    assert (info.value.source, info.value.record) == (path, first_bad)
    assert str(info.value).startswith(f"{path}, record {first_bad}: ")


def test_a_broken_json_list_is_one_bad_record_the_whole_file(
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = str(FIXTURES / "broken.json")
    report = IngestReport()
    with caplog.at_level(logging.WARNING, logger="kg.ingest"):
        papers = list(read_papers([path, FIXTURES / "colm2025.json"], report=report))
    assert [p.id for p in papers] == ["c1", "c2"]  # the next file is still read
    [skipped] = report.skipped
    assert (skipped.source, skipped.record) == (path, 0)
    assert skipped.reason.startswith("the whole file is skipped: not valid JSON")
    assert f"{path}: skipped: the whole file is skipped" in caplog.text
    with pytest.raises(InputError, match=r"broken\.json: the whole file is skipped"):
        list(read_papers([path], strict=True))


def test_duplicates_are_merged_or_renamed_and_reported(caplog: pytest.LogCaptureFixture) -> None:
    path = str(FIXTURES / "duplicates.jsonl")
    report = IngestReport()
    with caplog.at_level(logging.INFO, logger="kg.ingest"):
        papers = list(read_papers([path], report=report))
    hashed = content_id("Hashed abstract.")
    assert [(p.id, p.record) for p in papers] == [
        ("d1", 1),
        ("d2", 2),
        ("d1~2", 4),
        ("d1~3", 5),
        ("d1~2~2", 6),
        (hashed, 7),
    ]
    assert report.read == 8 and report.merged == 2 and report.renamed == 3

    def at(record: int) -> Place:
        return Place(path, record)

    assert [(d.id, d.first, d.again, d.action, d.new_id) for d in report.duplicates] == [
        ("d1", at(1), at(3), DuplicateAction.MERGED, "d1"),
        ("d1", at(1), at(4), DuplicateAction.RENAMED, "d1~2"),
        ("d1", at(1), at(5), DuplicateAction.RENAMED, "d1~3"),
        ("d1~2", at(4), at(6), DuplicateAction.RENAMED, "d1~2~2"),
        (hashed, at(7), at(8), DuplicateAction.MERGED, hashed),
    ]
    assert f"{path}, record 3" in caplog.text and f"{path}, record 1" in caplog.text


def test_duplicates_across_files_name_both_files() -> None:
    report = IngestReport()
    first = FIXTURES / "papers.json"
    papers = list(read_papers([first, first], report=report))
    assert len(papers) == 3 and report.read == 6 and report.merged == 3
    assert report.duplicates[0].first == Place(str(first), 1)


def test_strict_raises_on_a_duplicate() -> None:
    path = str(FIXTURES / "duplicates.jsonl")
    with pytest.raises(InputError, match=r"duplicates\.jsonl, record 3: duplicate id 'd1'"):
        list(read_papers([path], strict=True))


def test_missing_file_is_reported_before_any_paper(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    papers = read_papers([FIXTURES / "papers.json", missing])
    with pytest.raises(InputError, match=r"nope\.json: no such file; check the path") as info:
        next(papers)
    assert info.value.exit_code == 2


def test_directory_without_a_supported_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "notes.dat").write_text("x")
    (tmp_path / ".hidden.json").write_text("[]")
    with pytest.raises(InputError, match="the directory holds no file of a known format"):
        list(read_papers([tmp_path]))


def test_symlink_loop_says_so(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(tmp_path / "loop.json")
    with pytest.raises(InputError, match="symbolic link that cannot be followed"):
        list(read_papers([loop]))


def test_unknown_format_names_the_file_and_the_fix(tmp_path: Path) -> None:
    odd = tmp_path / "notes.dat"
    odd.write_text("Just some words, no structure.\n")
    with pytest.raises(InputError, match=r"notes\.dat: unknown input format; use one of \.txt"):
        list(read_papers([odd]))


def test_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    corrupt = tmp_path / "cut.jsonl.gz"
    data = gzip.compress((FIXTURES / "duplicates.jsonl").read_bytes())
    corrupt.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.jsonl\.gz: cannot read the file .*corrupt"):
        list(read_papers([corrupt]))


def test_without_deduplication_every_record_is_yielded_as_read() -> None:
    report = IngestReport()
    papers = list(read_papers([FIXTURES / "duplicates.jsonl"], report=report, deduplicate=False))
    assert [p.id for p in papers].count("d1") == 4
    assert report.duplicates == []


def test_a_table_without_paper_columns_is_one_skip_not_a_skip_per_row(tmp_path: Path) -> None:
    # A folder often holds a listing or a log next to the papers: its rows are not papers,
    # so the file is skipped once, naming its columns, and the papers beside it are read.
    listing = tmp_path / "INVENTORY.tsv"
    listing.write_text("path\tbytes\tpapers\na.json\t12\t3\nb.json\t40\t9\n")
    papers_file = tmp_path / "papers.csv"
    papers_file.write_text("Key,Title,Abstract Note\nK1,A title,We study graphs.\n")
    report = IngestReport()
    papers = list(read_papers([tmp_path], report=report))
    assert [p.title for p in papers] == ["A title"]
    [skipped] = report.skipped
    assert (skipped.source, skipped.record) == (str(listing), 0)
    assert skipped.reason == ("the whole file is skipped: no column of its header (path, bytes, "
                              "papers) holds an id, a title or an abstract")
    with pytest.raises(InputError, match=r"INVENTORY\.tsv: the whole file is skipped"):
        list(read_papers([listing], strict=True))


def test_a_table_with_any_paper_column_is_read_row_by_row(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("ID,note\n,first\nP2,second\n")
    report = IngestReport()
    assert [p.id for p in read_papers([path], report=report)] == ["P2"]
    assert [(s.record, s.reason) for s in report.skipped] == [
        (1, "empty record: no id, no title and no abstract")]
