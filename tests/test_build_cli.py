"""`kg build` (and `kg eval` on its output) end to end, with the real extraction pipeline.

Every build in this module reuses one loaded `Extractor` (`Extractor.load` is patched to
return it), so the model loads once. The shared sample corpus is built once per session of
this module and checked with SPARQL (pyoxigraph) against docs/VOCABULARY.md and the gold file.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner, Result

from kg.build import run_build
from kg.cli import main
from kg.extract import Extractor

pytestmark = pytest.mark.model

FIXTURES = Path(__file__).parent / "fixtures" / "build"
SMALL = FIXTURES / "small.jsonl"  # three good records with titles
BAD = FIXTURES / "bad.jsonl"  # good, broken JSON, numeric abstract, no abstract, good, dup id

PREFIXES = """
PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX schema: <https://schema.org/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
PAPER = "https://w3id.org/paperkg/resource/paper/"


@pytest.fixture(scope="module", autouse=True)
def one_extractor() -> Iterator[Extractor]:
    """Load the real pipeline once; every `run_build` of this module gets it."""
    extractor = Extractor.load()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Extractor, "load", classmethod(lambda cls, *a, **k: extractor))
        yield extractor


def kg(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def load(path: Path, fmt: ox.RdfFormat = ox.RdfFormat.TURTLE) -> ox.Store:
    store = ox.Store()
    store.bulk_load(path=str(path), format=fmt)
    return store


def ask(store: ox.Store, query: str) -> bool:
    return bool(store.query(PREFIXES + query))


def select(store: ox.Store, query: str) -> list[dict[str, str]]:
    solutions = store.query(PREFIXES + query)
    assert isinstance(solutions, ox.QuerySolutions)
    names = [v.value for v in solutions.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in solutions]


def evidence_mismatches(store: ox.Store) -> list[dict[str, str]]:
    """Evidence whose text is not the SUBSTR of its field at its offsets."""
    return select(store, """
        SELECT ?e ?text ?found WHERE {
          ?e a kg:Evidence ; kg:paper ?p ; kg:field ?field ; kg:start ?s ; kg:end ?end ;
             kg:text ?text .
          VALUES (?field ?property) { ("abstract" dcterms:abstract) ("title" dcterms:title) }
          ?p ?property ?stored .
          BIND(SUBSTR(?stored, ?s + 1, ?end - ?s) AS ?found)
          FILTER(?found != ?text)
        }""")


# --- the shared sample corpus, built once -------------------------------------------------


@dataclass
class SampleBuild:
    graph: Path
    result: Result
    store: ox.Store
    warnings: list[str]


@pytest.fixture(scope="module")
def sample_builds() -> dict[Path, SampleBuild]:
    """Cache of sample builds for this module (the build takes seconds)."""
    return {}


@pytest.fixture
def sample(
    shared_data: Path,
    sample_builds: dict[Path, SampleBuild],
    tmp_path_factory: pytest.TempPathFactory,
    caplog: pytest.LogCaptureFixture,
) -> SampleBuild:
    source = shared_data / "iclr2025_abstracts.txt"
    if source not in sample_builds:
        graph = tmp_path_factory.mktemp("sample") / "graph.ttl"
        with caplog.at_level(logging.WARNING):
            result = kg("build", source, "-o", graph)
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert result.exit_code == 0, result.output
        sample_builds[source] = SampleBuild(graph, result, load(graph), warnings)
    return sample_builds[source]


def test_sample_build_summary(sample: SampleBuild) -> None:
    out = sample.result.stdout
    assert re.search(r"^papers read\s+19$", out, re.M)
    assert re.search(r"^papers skipped\s+0$", out, re.M)
    assert re.search(r"^graph\s+.*graph\.ttl$", out, re.M)
    assert sample.warnings == []


def test_sample_lqca_is_a_method_its_paper_proposes(sample: SampleBuild) -> None:
    assert ask(sample.store, """ASK {
        ?c skos:prefLabel "Long Question Coreference Adaptation" ; a kg:Method ;
           skos:altLabel "LQCA" ; kg:acronym "LQCA" .
        ?p kg:proposes ?c ; dcterms:abstract ?a .
        FILTER(CONTAINS(?a, "we introduce the Long Question Coreference Adaptation (LQCA)"))
    }""")


def test_sample_swe_bench_lite_is_a_dataset(sample: SampleBuild) -> None:
    assert ask(sample.store, """ASK {
        ?c skos:prefLabel|skos:altLabel "SWE-Bench Lite" ; a kg:Dataset }""")


def test_sample_llm_forms_are_one_concept(sample: SampleBuild) -> None:
    rows = select(sample.store, """
        SELECT DISTINCT ?c ?pref WHERE {
          VALUES ?label { "LLM" "LLMs" "large language models" }
          ?c skos:prefLabel|skos:altLabel ?label ; skos:prefLabel ?pref .
        }""")
    assert len(rows) == 1, rows
    assert rows[0]["pref"] == "large language model"
    for label in ("LLM", "LLMs", "large language models"):
        assert ask(sample.store, f'ASK {{ <{rows[0]["c"]}> skos:altLabel "{label}" }}'), label


@pytest.mark.parametrize(
    "name",
    ["GPT-4o", "OpenAI-o1-mini", "Qwen2-72B-Instruct", "Diff-PIC", "OOD-TV-IRM", "ChatQA 2"],
)
def test_sample_names_are_whole_labels(sample: SampleBuild, name: str) -> None:
    assert ask(sample.store, f'ASK {{ ?c skos:prefLabel|skos:altLabel "{name}" }}')


def test_sample_code_link_is_the_papers_code_repository(sample: SampleBuild) -> None:
    assert ask(sample.store, """ASK {
        ?p schema:codeRepository <https://github.com/OceannTwT/LQCA> ; kg:proposes ?c .
        ?c skos:prefLabel "Long Question Coreference Adaptation" }""")


def test_sample_evidence_text_is_the_substring_at_its_offsets(sample: SampleBuild) -> None:
    assert evidence_mismatches(sample.store) == []
    (row,) = select(sample.store, "SELECT (COUNT(?e) AS ?n) WHERE { ?e a kg:Evidence }")
    assert int(row["n"]) > 300
    # Every linked concept has evidence in its paper (none was dropped for bad offsets).
    assert not ask(sample.store, """ASK {
        ?p kg:mentions ?c .
        FILTER NOT EXISTS { ?e kg:paper ?p ; kg:concept ?c }
    }""")


def test_sample_concepts_have_exactly_one_type(sample: SampleBuild) -> None:
    rows = select(sample.store, """
        SELECT ?c (COUNT(?t) AS ?n) WHERE {
          ?c a skos:Concept .
          OPTIONAL { ?c a ?t FILTER(?t IN (kg:Model, kg:Method, kg:Task, kg:Dataset,
                                           kg:Metric, kg:Concept)) }
        } GROUP BY ?c HAVING (COUNT(?t) != 1)""")
    assert rows == []


def test_sample_labels_start_with_a_letter_or_digit(sample: SampleBuild) -> None:
    # "a 34.3% resolve rate" must give "resolve rate", not "% resolve rate".
    rows = select(sample.store, """
        SELECT ?label WHERE { ?c skos:prefLabel|skos:altLabel ?label .
                              FILTER(!REGEX(?label, "^[\\\\p{L}\\\\p{N}]")) }""")
    assert rows == []


def test_sample_speculative_inference_is_compared_not_proposed(sample: SampleBuild) -> None:
    # "DSI, a novel inference algorithm that is provably faster than speculative inference
    # (SI)": kg.extract.roles documents that what a sentence compares with is not proposed.
    rows = select(sample.store, """
        SELECT ?role WHERE {
          ?p dcterms:abstract ?a ; ?role ?c .
          ?c skos:prefLabel "speculative inference" .
          FILTER(STRSTARTS(?a, "This paper introduces *distributed speculative inference"))
          FILTER(?role != kg:mentions)
        }""")
    assert rows == [{"role": "https://w3id.org/paperkg/ontology#comparesWith"}]


def _figure(summary: str, name: str) -> float:
    match = re.search(rf"^{name}\s+([0-9.]+)", summary, re.M)
    assert match, (name, summary)
    return float(match.group(1))


@pytest.mark.dev
def test_sample_meets_the_gold_floor(sample: SampleBuild, shared_data: Path) -> None:
    """A floor on the sample corpus, which is training data of the learned decisions: a
    guard against a broken build, not a quality figure (those are cross-validated:
    `make eval`). Precision here is below the rules' old 0.86 because the learned model
    trades the sample's precision for recall on papers nobody tuned it for."""
    result = kg("eval", "--no-details", sample.graph, shared_data / "gold" /
                "iclr2025_gold.json")
    assert result.exit_code == 0, result.output
    summary = result.stdout
    assert _figure(summary, "papers") == 19
    assert _figure(summary, "must-recall") >= 0.90, summary
    assert _figure(summary, "precision") >= 0.70, summary
    assert _figure(summary, "type accuracy") >= 0.85, summary
    assert _figure(summary, "proposes recall") >= 0.85, summary


# --- small hand-made corpora ---------------------------------------------------------------


def test_same_corpus_gives_byte_identical_turtle(tmp_path: Path) -> None:
    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    run_build([SMALL], first)
    run_build([SMALL], second)
    assert first.read_bytes() == second.read_bytes()
    # And the CLI writes the very same bytes.
    third = tmp_path / "c.ttl"
    assert kg("build", SMALL, "-o", third).exit_code == 0
    assert third.read_bytes() == first.read_bytes()


def test_small_build_has_titles_concepts_and_valid_evidence(tmp_path: Path) -> None:
    graph = tmp_path / "graph.ttl"
    summary = run_build([SMALL], graph)
    assert (summary.papers_read, summary.papers_skipped) == (3, 0)
    store = load(graph)
    assert evidence_mismatches(store) == []
    assert ask(store, f"""ASK {{ <{PAPER}p2> dcterms:title "Agents on SWE-Bench Lite" ;
                                  kg:evaluatesOn ?c .
                                ?c skos:prefLabel "SWE-Bench Lite" ; a kg:Dataset }}""")
    assert ask(store, f"""ASK {{ <{PAPER}p1> schema:codeRepository
                                    <https://github.com/OceannTwT/LQCA> }}""")
    assert ask(store, """ASK { ?e a kg:Evidence ; kg:field "title" }""")


def test_sample_graph_is_byte_identical_in_another_process(
    sample: SampleBuild, tmp_path: Path, shared_data: Path
) -> None:
    # Another interpreter with another string-hash seed: set and dict orders that leak into
    # the output would differ there.
    graph = tmp_path / "graph.ttl"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run(
        [sys.executable, "-c", "from kg.cli import main; main()", "build", "--no-progress",
         str(shared_data / "iclr2025_abstracts.txt"), "-o", str(graph)],
        env=env, check=True, capture_output=True, timeout=300,
    )
    assert graph.read_bytes() == sample.graph.read_bytes()


@pytest.mark.parametrize(
    ("fmt", "name", "rdflib_format"),
    [("nt", "graph.nt", "nt"), ("jsonld", "graph.jsonld", "json-ld"),
     ("nt", "graph.out", "nt")],  # --format wins over the file name
)
def test_formats_are_isomorphic_to_turtle(
    tmp_path: Path, fmt: str, name: str, rdflib_format: str
) -> None:
    import rdflib
    from rdflib.compare import graph_diff, isomorphic, to_isomorphic

    turtle = tmp_path / "graph.ttl"
    assert kg("build", SMALL, "-o", turtle).exit_code == 0
    other = tmp_path / name
    result = kg("build", SMALL, "-o", other, "--format", fmt)
    assert result.exit_code == 0, result.output
    expected = rdflib.Graph().parse(turtle, format="turtle")
    actual = rdflib.Graph().parse(other, format=rdflib_format)
    assert len(actual) == len(expected) > 200
    if not isomorphic(expected, actual):
        _, only_ttl, only_other = graph_diff(to_isomorphic(expected), to_isomorphic(actual))
        pytest.fail(f"only in Turtle: {sorted(only_ttl)[:5]}; only in {fmt}: "
                    f"{sorted(only_other)[:5]}")


def test_unknown_output_extension_is_a_clean_error(tmp_path: Path) -> None:
    result = kg("build", SMALL, "-o", tmp_path / "graph.xyz")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "graph.xyz" in result.stderr and "--format" in result.stderr


# --- bad input ------------------------------------------------------------------------------


@pytest.fixture
def bad_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> tuple[Result, ox.Store, list[logging.LogRecord]]:
    graph = tmp_path / "graph.ttl"
    with caplog.at_level(logging.INFO, logger="kg.ingest"):
        result = kg("build", BAD, "-o", graph)
    assert result.exit_code == 0, result.output
    return result, load(graph), [r for r in caplog.records if r.name.startswith("kg.ingest")]


def test_bad_records_are_skipped_good_ones_kept(
    bad_build: tuple[Result, ox.Store, list[logging.LogRecord]],
) -> None:
    result, store, _ = bad_build
    out = result.stdout
    assert re.search(r"^papers read\s+4$", out, re.M)
    assert re.search(r"^papers skipped\s+2$", out, re.M)
    assert re.search(r"^without abstract\s+1$", out, re.M)
    ids = {row["id"] for row in select(store, """
        SELECT ?id WHERE { ?p a schema:ScholarlyArticle ; dcterms:identifier ?id }""")}
    assert ids == {"g1", "t1", "g2", "g1~2"}
    assert ask(store, f"""ASK {{ <{PAPER}g1> kg:proposes ?c .
        ?c skos:prefLabel "Long Question Coreference Adaptation" }}""")
    assert ask(store, f"""ASK {{ <{PAPER}g2> kg:mentions ?c .
        ?c skos:prefLabel|skos:altLabel "SWE-Bench Lite" }}""")


def test_bad_records_are_logged_with_file_record_and_reason(
    bad_build: tuple[Result, ox.Store, list[logging.LogRecord]],
) -> None:
    _, _, records = bad_build
    warnings = [r.getMessage() for r in records
                if r.levelno == logging.WARNING and "skipped" in r.getMessage()]
    assert len(warnings) == 2, warnings
    broken, numeric = warnings
    assert "bad.jsonl, record 2: skipped:" in broken and "not valid JSON" in broken
    assert "bad.jsonl, record 3: skipped:" in numeric
    assert "'abstract'" in numeric and "number" in numeric


def test_record_without_abstract_keeps_its_metadata_and_no_links(
    bad_build: tuple[Result, ox.Store, list[logging.LogRecord]],
) -> None:
    _, store, _ = bad_build
    assert ask(store, f'ASK {{ <{PAPER}t1> dcterms:title "Title Only Record" }}')
    assert not ask(store, f"ASK {{ <{PAPER}t1> kg:mentions ?c }}")
    assert not ask(store, f"ASK {{ ?e kg:paper <{PAPER}t1> }}")
    assert not ask(store, f"ASK {{ <{PAPER}t1> dcterms:abstract ?a }}")


def test_duplicate_ids_are_reported_and_kept_apart(
    bad_build: tuple[Result, ox.Store, list[logging.LogRecord]],
) -> None:
    result, store, records = bad_build
    assert re.search(r"^duplicate ids\s+1$", result.stdout, re.M)
    (duplicate,) = [r.getMessage() for r in records if "duplicate id" in r.getMessage()]
    assert "'g1'" in duplicate and "record 6" in duplicate and "record 1" in duplicate
    assert ask(store, f"""ASK {{ <{PAPER}g1~2> dcterms:title "Different record, same id" }}""")
    assert ask(store, f'ASK {{ <{PAPER}g1> dcterms:title "Good one" }}')


def test_strict_fails_on_the_first_bad_record(tmp_path: Path) -> None:
    graph = tmp_path / "graph.ttl"
    result = kg("build", "--strict", BAD, "-o", graph)
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)  # a clean message, no traceback
    assert result.stderr.startswith("kg build: ")
    assert "bad.jsonl, record 2:" in result.stderr and "not valid JSON" in result.stderr
    assert not graph.exists()


def test_strict_fails_on_a_duplicate_id(tmp_path: Path) -> None:
    dup = tmp_path / "dup.jsonl"
    dup.write_text(SMALL.read_text(encoding="utf-8")
                   + '{"id": "p1", "title": "Other", "abstract": "Other text."}\n',
                   encoding="utf-8")
    result = kg("build", "--strict", dup, "-o", tmp_path / "graph.ttl")
    assert result.exit_code == 2
    assert "duplicate id 'p1'" in result.stderr and "record 4" in result.stderr


def test_missing_input_is_a_clean_error(tmp_path: Path) -> None:
    graph = tmp_path / "graph.ttl"
    missing = tmp_path / "missing.jsonl"
    result = kg("build", missing, "-o", graph)
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("kg build: ")
    assert str(missing) in result.stderr and "no such file" in result.stderr
    assert "Traceback" not in result.output
    assert not graph.exists()


# --- help -----------------------------------------------------------------------------------


def test_build_help() -> None:
    result = kg("build", "--help")
    assert result.exit_code == 0
    assert "Build the knowledge graph of INPUTS" in result.stdout
    for option in ("--output", "--format", "--base", "--strict", "--store", "--html",
                   "--processes", "--progress / --no-progress", "--input-format",
                   "--max-field-chars", "--max-record-mb", "--max-document-mb"):
        assert option in result.stdout


def test_build_needs_an_input() -> None:
    result = kg("build")
    assert result.exit_code == 2
    assert "INPUTS" in result.stderr
