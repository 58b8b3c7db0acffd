"""`kg stats GRAPH` through click's CliRunner: exact output and clean errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.rdf import GraphFormat, build_triples, write_graph
from kg.rdf.sample import sample_corpus
from kg.rdf.stats import graph_stats

GOLDEN = Path(__file__).parent / "golden" / "small.ttl"

EXPECTED = """\
papers             3
concepts          10
  Model            2
  Method           2
  Task             1
  Dataset          2
  Metric           1
  Concept          2
links             11
  proposes         1
  addresses        2
  evaluatesOn      2
  measures         1
  comparesWith     0
  uses             3
  mentions only    2
keyword links      2
evidence          21
triples          394

top 10 concepts by paper count
  large language model                  Model    2
  BERT                                  Model    1
  C++                                   Concept  1
  GLUE                                  Dataset  1
  LoRA                                  Method   1
  Long Question Coreference Adaptation  Method   1
  LongBench                             Dataset  1
  accuracy                              Metric   1
  coreference resolution                Task     1
  hallucination                         Concept  1
"""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["stats", *args])
    return result.exit_code, result.stdout, result.stderr


def test_stats_of_the_small_graph() -> None:
    assert run(str(GOLDEN)) == (0, EXPECTED, "")


def test_top_option_and_every_format_give_the_same_counts(tmp_path: Path) -> None:
    triples = build_triples(sample_corpus(), include_ontology=False)
    head = EXPECTED.split("\n\n")[0] + "\n"
    for fmt in GraphFormat:
        path = tmp_path / f"small{fmt.extension}.gz"
        write_graph(triples, path)
        code, out, _ = run(str(path), "--top", "2")
        assert code == 0
        assert out == head + (
            "\ntop 2 concepts by paper count\n"
            "  large language model  Model  2\n"
            "  BERT                  Model  1\n"
        )
    assert run(str(GOLDEN), "--top", "0") == (0, head, "")


def test_ontology_triples_count_but_add_no_concepts(tmp_path: Path) -> None:
    path = tmp_path / "with-ontology.nt"
    write_graph(build_triples(sample_corpus()), path)
    stats = graph_stats(path)
    assert stats.total_concepts == 10 and stats.papers == 3
    assert stats.triples > 394


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.ttl", None, "missing.ttl: no such file"),
        ("bad.ttl", b"<a> <b> .", "bad.ttl: not valid RDF (ttl)"),
        ("graph.xyz", b"", "graph.xyz: unknown RDF format"),
        ("bad.nt.gz", b"not gzip", "bad.nt.gz: not valid RDF (nt)"),
    ],
)
def test_errors_name_the_file_and_exit_2(
    tmp_path: Path, name: str, content: bytes | None, message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(str(path))
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1


