"""Bad input never crashes a read or loses good records silently (issue 13's audit cases as a
corpus in tests/fixtures/fuzz/, plus a bounded property-based fuzz of every reader)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import InputError
from kg.ingest import IngestReport, read_papers
from kg.ingest.limits import ReadLimits
from kg.query.formats import xml_safe

FUZZ = Path(__file__).parent / "fixtures" / "fuzz"

# file -> (ids of the papers read, {record: start of the reason it is skipped with}).
CASES: dict[str, tuple[list[str], dict[int, str]]] = {
    "trailing_comma.json": ([], {0: "the whole file is skipped: not valid JSON (Expecting value"}),
    "truncated.json": ([], {0: "the whole file is skipped: not valid JSON (Unterminated string"}),
    "truncated.jsonl": (["a"], {2: "line is not valid JSON"}),
    "top_level_object.json": ([], {1: "empty record: no id, no title and no abstract"}),
    "empty.json": ([], {0: "the whole file is skipped: not valid JSON"}),
    "empty.jsonl": ([], {}),
    "empty.csv": ([], {}),
    "header_only.csv": ([], {}),
    "unclosed_quote.csv": (["2", "3"], {1: 'row starting at line 2 has a quote (") that is never'}),
    "unclosed_quote_last_cell.csv": (["2", "3"], {1: "row starting at line 2 has a quote"}),
    "quoted_newline.csv": (["1", "2"], {}),
    "quotes.tsv": (["1", "2", "3", "4"], {}),
    "utf16be_nobom.csv": (["1", "2", "3"], {}),
    "utf16le_bom.csv": (["1", "2"], {}),
    "semicolon.csv": (["1", "2"], {}),
    "surrogate_abstract.json": (["s1", "s2"], {}),
    "surrogate_title_id.jsonl": (["x\ufffd", "ok"], {}),
    "surrogate_author_keyword.json": (["k1", "k2"], {}),
    "surrogate_openalex.json": (["W1"], {}),
    "bibtex_commands.bib": (["cmd1"], {}),
    "cjk_arabic_hebrew_authors.json": (["p0", "p1", "p2", "p3", "p4"], {}),
    "not_utf8.jsonl": (["b"], {1: "line is not valid UTF-8"}),
    "control_chars.json": (["c"], {}),
    "noncharacters.json": (["n1[31m", "n2"], {}),
    "wrong_types.json": (
        ["ok"],
        {1: "field 'id' is a boolean", 2: "field 'abstract' is a number",
         3: "field 'year' is a list"},
    ),
    "nan_year.jsonl": (["a"], {2: "field 'year' is a number, expected a year like 2025"}),
    "broken_ris.ris": (
        ["h-4e00998b67d68d72", "h-fd67d6f8227fdbd8"], {2: "lines 6-8 are outside any entry"}
    ),
    "broken.atom": (["1234.5678"], {0: "the rest of the file is skipped: not valid XML"}),
    "xml_bomb.atom": ([], {0: "the rest of the file is skipped: not valid XML"}),
    "medline_garbage.nbib": (["1", "3"], {2: "citation has no MEDLINE tags"}),
}


def test_every_case_file_is_listed() -> None:
    assert sorted(p.name for p in FUZZ.iterdir()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_reads_the_good_records_and_names_each_skip(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    ids, skipped = CASES[name]
    path = str(FUZZ / name)
    report = IngestReport()
    with caplog.at_level(logging.WARNING, logger="kg.ingest"):
        papers = list(read_papers([path], report=report))
    assert [p.id for p in papers] == ids
    assert {s.record: s.reason for s in report.skipped}.keys() == skipped.keys()
    for record in report.skipped:
        assert record.source == path
        assert record.reason.startswith(skipped[record.record]), record.reason
    messages = [r.getMessage() for r in caplog.records]
    assert all(m.startswith(path) for m in messages)


@pytest.mark.parametrize("name", sorted(n for n, (_, skips) in CASES.items() if skips))
def test_strict_refuses_every_case_with_a_skip(name: str) -> None:
    with pytest.raises(InputError, match=name.replace(".", r"\.")):
        list(read_papers([FUZZ / name], strict=True))


def test_surrogates_are_repaired_naming_the_field() -> None:
    report = IngestReport()
    [first, _] = read_papers([FUZZ / "surrogate_author_keyword.json"], report=report)
    assert first.authors == ("Ada \ufffd Lovelace",) and first.keywords == ("graphs\ufffd",)
    reasons = sorted(r.reason.split(" holds")[0] for r in report.repaired)
    assert reasons == ["field 'authors'", "field 'keywords'"]
    with pytest.raises(InputError, match="field 'abstract' holds a lone surrogate"):
        list(read_papers([FUZZ / "surrogate_abstract.json"], strict=True))


def test_controls_and_noncharacters_are_dropped_from_every_field() -> None:
    report = IngestReport()
    first, second = read_papers([FUZZ / "noncharacters.json"], report=report)
    assert (first.id, first.title, first.venue) == ("n1[31m", "Graph[31m networks", "ICLR[31m")
    assert first.abstract == (
        "We propose GraphNet[31m, a graph neural network for node classification."
    )
    assert first.authors == ("Ann[31m Lee", "Bob Ray")
    assert first.keywords == ("graphs[31m", "trees")
    # Year -1 is left out (xsd:gYear would need "-0001"), naming the field; 2024 is kept.
    assert (first.year, second.year) == (None, 2024)
    assert [(r.record, r.reason) for r in report.repaired] == [
        (1, "field 'year' is -1, not a year from 1 to 9999: left out")
    ]
    with pytest.raises(InputError, match="field 'year' is -1"):
        list(read_papers([FUZZ / "noncharacters.json"], strict=True))


def test_bibtex_keeps_commands_that_are_not_accents() -> None:
    [paper] = read_papers([FUZZ / "bibtex_commands.bib"])
    assert paper.title == r"On \log-linear Models for \item Ranking"
    assert paper.abstract == (
        r"We bound the cost by $O(n \log n)$ as in \cite{knuth}, and list each \item of the set; "
        "the ł-norm and the ø case are discussed."
    )
    assert paper.authors == ("Jan Novák", "Jan Łukasiewicz")


def test_tsv_has_no_quoting_and_utf16_is_decoded() -> None:
    papers = list(read_papers([FUZZ / "quotes.tsv"]))
    assert papers[0].title == '"Quoted" title'
    assert papers[1].abstract is not None and papers[1].abstract.startswith('"We study')
    report = IngestReport()
    utf16 = list(read_papers([FUZZ / "utf16be_nobom.csv"], report=report))
    assert [p.title for p in utf16] == ["First", "Second", "Third"]
    assert report.formats[str(FUZZ / "utf16be_nobom.csv")] == "csv (UTF-16-BE)"
    assert next(read_papers([FUZZ / "utf16le_bom.csv"])).title == "Første"


def test_deeply_nested_json_is_a_clean_skip(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    lines = tmp_path / "deep.jsonl"
    lines.write_text('{"id": "ok", "abstract": "A."}\n' + '{"a": ' * 100_000 + "1" + "}" * 100_000)
    report = IngestReport()
    papers = list(read_papers([deep, lines], report=report))
    assert [p.id for p in papers] == ["ok"]
    assert [(s.record, s.reason.split(" (")[0]) for s in report.skipped] == [
        (0, "the whole file is skipped: nested too deeply to read"),
        (2, "line is nested too deeply to read"),
    ]


def test_one_size_policy_for_every_format(tmp_path: Path) -> None:
    huge = "word " * 20_000  # 100,000 characters
    records = [{"id": "big", "abstract": huge}, {"id": "ok", "abstract": "Fine."}]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    (tmp_path / "a.csv").write_text(f"id,abstract\nbig,{huge}\nok,Fine.\n")
    (tmp_path / "a.bib").write_text(f"@article{{big, abstract={{{huge}}}}}\n@article{{ok, "
                                    "abstract={Fine.}}\n")  # fmt: skip
    (tmp_path / "a.ris").write_text(f"TY  - JOUR\nID  - big\nAB  - {huge}\nER  - \n"
                                    "TY  - JOUR\nID  - ok\nAB  - Fine.\nER  - \n")  # fmt: skip
    for name in ("a.jsonl", "a.csv", "a.bib", "a.ris"):
        report = IngestReport()
        papers = list(read_papers([tmp_path / name], report=report))
        assert [p.id for p in papers] == ["ok"], name
        [skip] = report.skipped
        assert skip.reason == (
            "field 'abstract' has 99,999 characters, over the limit of 50,000 (--max-field-chars)"
        ), name
    small = ReadLimits(max_record_bytes=1000)
    report = IngestReport()
    assert [p.id for p in read_papers([tmp_path / "a.jsonl"], report=report, limits=small)] == [
        "ok"
    ]
    assert report.skipped[0].reason == (
        "line has 100,030 bytes, over the limit of 1,000 (--max-record-mb)"
    )


# -- property-based fuzz: any bytes in any format, bounded --------------------------------------

_SEEDS = [
    b'[{"id": "a", "title": "T", "abstract": "A."}]',
    b'{"id": "a", "abstract": "A."}\n{"id": "b", "abstract": "B."}\n',
    b"id,title,abstract\n1,T,A.\n",
    b"@article{k, title={T}, abstract={A \\'e}}\n",
    b"TY  - JOUR\nTI  - T\nAB  - A.\nER  - \n",
    b"PMID- 1\nTI  - T\nAB  - A.\n",
    b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id><summary>A</summary></entry></feed>',
]
_EXTENSIONS = [".json", ".jsonl", ".csv", ".tsv", ".bib", ".ris", ".nbib", ".atom", ".txt"]


@st.composite
def _inputs(draw: st.DrawFn) -> tuple[str, bytes]:
    seed = draw(st.sampled_from(_SEEDS))
    cut = draw(st.integers(0, len(seed)))
    noise = draw(st.binary(max_size=40) | st.text(max_size=40).map(lambda t: t.encode("utf-8",
                                                                                "surrogatepass")))
    data = seed[:cut] + noise + seed[cut:]
    if draw(st.booleans()):
        encoding = draw(st.sampled_from(["utf-16", "utf-16-be"]))
        data = data.decode("utf-8", "replace").encode(encoding)
    return draw(st.sampled_from(_EXTENSIONS)), data


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(_inputs())
def test_no_input_crashes_a_reader(tmp_path: Path, case: tuple[str, bytes]) -> None:
    extension, data = case
    path = tmp_path / f"fuzz{extension}"
    path.write_bytes(data)
    report = IngestReport()
    try:
        papers = list(read_papers([path], report=report))
    except InputError:
        return  # an unknown format: a clean error naming the file
    for paper in papers:
        for text in (paper.id, paper.title or "", paper.abstract or "", paper.venue or "",
                     *paper.authors, *paper.keywords):  # fmt: skip
            text.encode("utf-8")  # valid Unicode: no lone surrogate reaches the graph
            assert xml_safe(text) == text  # nor a control character or a noncharacter
    assert all(s.source == str(path) and s.reason for s in report.skipped)
