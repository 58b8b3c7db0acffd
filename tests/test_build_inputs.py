"""`kg build` on real exports: the same graph whatever the format, never an empty graph written
over a good one, a line per stage, directories and standard input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg.build import build_corpus
from kg.cli import main
from kg.ingest import read_papers
from kg.types import Corpus, Field

FORMATS = Path(__file__).parent / "fixtures" / "formats"
SIX_PAPER_FILES = [
    "zotero.csv", "zotero_csl.json", "zotero.ris", "zotero.bib", "openalex_works.json",
    "openalex_part_000.gz", "s2_search.json", "s2_batch.json", "arxiv_snapshot.json",
    "arxiv_api.atom", "openreview_v2.json", "openreview_v1.json", "pubmed.nbib",
]  # fmt: skip


def run(*args: object, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin)


def graph_of(corpus: Corpus) -> tuple[set[tuple[str, str, str]], set[tuple[str, str]]]:
    """Links as (paper title, concept key, role) from the title and abstract, and concepts as
    (key, type): what must not depend on the input format."""
    title = {p.id: p.title or "" for p in corpus.papers}
    links = {
        (title[link.paper_id], link.concept_key, link.role.value)
        for link in corpus.links
        if any(m.span.field is not Field.KEYWORDS for m in link.mentions)
    }
    linked = {key for _, key, _ in links}
    concepts = {(c.key, c.ctype.value) for c in corpus.concepts.values() if c.key in linked}
    return links, concepts


def test_the_same_six_papers_give_the_same_graph_in_every_format() -> None:
    reference = None
    for name in SIX_PAPER_FILES:
        papers = [p for p in read_papers([FORMATS / name]) if p.abstract]
        assert len(papers) == 6, name
        links, concepts = graph_of(build_corpus(papers, n_process=1))
        assert len(links) >= 20, name
        if reference is None:
            reference = (links, concepts)
            continue
        assert links == reference[0], name
        assert concepts == reference[1], name


def test_no_abstract_exits_non_zero_naming_fields_and_keeps_the_old_graph(
    tmp_path: Path,
) -> None:
    out = tmp_path / "graph.ttl"
    good = run("build", FORMATS / "zotero.ris", "-o", out)
    assert good.exit_code == 0, good.output
    before = out.read_bytes()
    export = tmp_path / "export.csv"
    export.write_text("Key,Title,Summary\nK1,A paper,Abstract in a column nobody knows.\n")
    bad = run("build", export, "-o", out)
    assert bad.exit_code == 2
    assert "read 1 records from 1 file, none with an abstract" in bad.stderr
    assert "fields with a value: 'Key', 'Title', 'Summary'" in bad.stderr
    assert f"nothing was written ({out} is unchanged)" in bad.stderr
    assert out.read_bytes() == before


@pytest.mark.parametrize("content", ["", "[]", '[{"title": "A"},]', '{"title": "A", "ab',
                                     "id,title,abstract\n"])  # fmt: skip
def test_an_unusable_input_never_replaces_a_graph(tmp_path: Path, content: str) -> None:
    out = tmp_path / "graph.ttl"
    out.write_text("# the previous graph\n")
    bad = tmp_path / "papers.json"
    bad.write_text(content)
    result = run("build", bad, "-o", out, "--html", tmp_path / "page.html")
    assert result.exit_code == 2, result.output
    assert "no paper with an abstract to build from" in result.stderr
    assert out.read_text() == "# the previous graph\n"
    assert not (tmp_path / "page.html").exists()


def test_an_export_without_abstracts_says_where_they_were_looked_for(tmp_path: Path) -> None:
    export = tmp_path / "zotero.csv"
    export.write_text("Key,Item Type,Title,Abstract Note\nK1,journalArticle,A paper,\n")
    result = run("build", export, "-o", tmp_path / "g.ttl")
    assert result.exit_code == 2
    assert (f"{export} (csv): read as zotero-csv, the abstract from 'Abstract Note'; fields with "
            "a value: 'Key', 'Item Type', 'Title'") in result.stderr  # fmt: skip


def test_strict_fails_on_a_skipped_record_of_an_export(tmp_path: Path) -> None:
    result = run("build", FORMATS / "s2_batch.json", "-o", tmp_path / "g.ttl", "--strict")
    assert result.exit_code == 2
    assert "s2_batch.json, record 3: record is null" in result.stderr


def test_each_stage_is_one_line_with_its_time(tmp_path: Path) -> None:
    result = run("build", FORMATS / "openreview_v2.json", "-o", tmp_path / "g.ttl",
                 "--html", tmp_path / "g.html")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    stages = [line.split(":")[0] for line in lines]
    assert stages == ["reading", "extraction", "canonicalisation and linking", "writing", "page"]
    assert lines[0].startswith("reading: 6 papers, 6 with an abstract, 0 skipped (")
    assert all(line.endswith(" s)") for line in lines)
    assert "papers read       6" in result.stdout


def test_standard_input_with_input_format(tmp_path: Path) -> None:
    data = (FORMATS / "zotero.ris").read_bytes()
    result = run("build", "-", "--input-format", "ris", "-o", tmp_path / "g.ttl", stdin=data)
    assert result.exit_code == 0, result.output
    assert "papers read       7" in result.stdout
    sniffed = run("build", "-", "-o", tmp_path / "h.ttl",
                  stdin=(FORMATS / "openalex_works.json").read_bytes())  # fmt: skip
    assert sniffed.exit_code == 0, sniffed.output
    assert "papers read       7" in sniffed.stdout


def test_a_directory_builds(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    shutil.copy(FORMATS / "pubmed.nbib", inputs)
    shutil.copy(FORMATS / "openreview_v1.json", inputs)
    result = run("build", inputs, "-o", tmp_path / "g.ttl")
    assert result.exit_code == 0, result.output
    assert "papers read       12" in result.stdout


def test_identifiers_and_subjects_are_in_the_graph(tmp_path: Path) -> None:
    out = tmp_path / "g.nt"
    result = run("build", FORMATS / "s2_search.json", "-o", out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    paper = "<https://w3id.org/paperkg/resource/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776>"
    for triple in [
        f'{paper} <https://w3id.org/paperkg/ontology#doi> "10.48550/arxiv.1706.03762" .',
        f'{paper} <https://w3id.org/paperkg/ontology#arxivId> "1706.03762" .',
        f"{paper} <https://schema.org/sameAs> <https://doi.org/10.48550/arxiv.1706.03762> .",
        f"{paper} <https://schema.org/sameAs> <https://arxiv.org/abs/1706.03762> .",
        f'{paper} <http://purl.org/dc/terms/subject> "Computer Science" .',
        f"{paper} <https://schema.org/author> "
        "<https://w3id.org/paperkg/resource/person/lukasz-kaiser> .",
    ]:
        assert triple in text


def test_authors_in_other_scripts_stay_apart(tmp_path: Path) -> None:
    records = [{"id": f"p{i}", "abstract": "We study graph neural networks.", "authors": [name]}
               for i, name in enumerate(["王小明", "李华", "محمد علي", "דוד כהן"])]  # fmt: skip
    src = tmp_path / "cjk.json"
    src.write_text(json.dumps(records, ensure_ascii=False))
    out = tmp_path / "g.nt"
    assert run("build", src, "-o", out).exit_code == 0
    people = {line.split()[2] for line in out.read_text().splitlines()
              if "<https://schema.org/author>" in line}  # fmt: skip
    assert len(people) == 4 and not any(p.endswith("/person/_>") for p in people)
