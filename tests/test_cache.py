"""The parse cache (`kg.extract.cache`), extraction records and incremental builds.

Counters, not timings: `BuildSummary.extraction` counts the texts that went through the
English pipeline, and `Language.pipe` is wrapped to count the texts any spaCy pipeline saw.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from kg import build as kg_build
from kg.build import run_build
from kg.extract import cache as cache_module
from kg.extract import learned
from kg.extract.cache import (
    ExtractionCache,
    default_cache_dir,
    pipeline_versions,
    prepared_version,
    rules_version,
)
from kg.extract.decisions import DecisionThresholds
from kg.extract.extractor import ExtractorConfig, cached_extractor
from kg.extract.partition import extracting, paper_key
from kg.extract.records import from_record, to_record
from kg.ingest import read_papers

from .conftest import EXAMPLE

pytestmark = pytest.mark.model

SMALL = Path(__file__).parent / "fixtures" / "build" / "small.jsonl"
MORE = [
    {"id": "q1", "title": "Sparse attention for long documents",
     "abstract": "We propose SparseDoc, a sparse attention method for long-document "
                 "summarization. SparseDoc outperforms Longformer on the arXiv dataset."},
    {"id": "q2", "title": "Retrieval-augmented generation at scale",
     "abstract": "Retrieval-augmented generation (RAG) grounds large language models in "
                 "documents. We evaluate RAG on Natural Questions with exact match."},
]


@pytest.fixture
def pipe_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every text any spaCy pipeline is asked to process in this process."""
    seen: list[int] = []
    original = Language.pipe

    def counting(self: Language, texts, *args, **kwargs) -> Iterator:  # type: ignore[no-untyped-def]
        yield from original(self, _counted(texts, seen), *args, **kwargs)

    monkeypatch.setattr(Language, "pipe", counting)
    return seen


def _counted(texts, seen):  # type: ignore[no-untyped-def]
    for text in texts:
        seen.append(1)
        yield text


def build(tmp_path: Path, name: str, inputs: list[Path], cache: Path | bool, **kw):  # type: ignore[no-untyped-def]
    out = tmp_path / f"{name}.ttl"
    summary = run_build(inputs, out, n_process=1, cache=cache, **kw)
    return summary, out.read_bytes()


def test_warm_rebuild_is_byte_identical_and_parses_nothing(
    tmp_path: Path, pipe_calls: list[int]
) -> None:
    folder = tmp_path / "cache"
    cold, first = build(tmp_path, "cold", [EXAMPLE], folder)
    assert cold.extraction.parsed > 0 and cold.extraction.reused == 0
    assert len(pipe_calls) > 0
    pipe_calls.clear()
    warm, second = build(tmp_path, "warm", [EXAMPLE], folder)
    assert second == first
    assert (warm.extraction.parsed, warm.extraction.parse_hits) == (0, 0)
    assert warm.extraction.reused == warm.extraction.papers == 19
    assert pipe_calls == []  # neither the English pipeline nor the recogniser ran
    _, uncached = build(tmp_path, "none", [EXAMPLE], False)
    assert uncached == first


def test_cached_records_are_read_with_the_collector_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Decoding records makes no reference cycles; the collector's passes over the growing
    # extractions cost half of reading them (issue 14). It is back on afterwards.
    import gc

    folder = tmp_path / "cache"
    build(tmp_path, "cold", [SMALL], folder)
    seen: list[bool] = []
    original = kg_build.cached_extractions

    def reading(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(kg_build, "cached_extractions", reading)
    warm, _ = build(tmp_path, "warm", [SMALL], folder)
    assert warm.extraction.reused == 3
    assert seen and not any(seen)
    assert gc.isenabled()


def test_canonicalisation_runs_with_the_collector_paused_and_freezes_what_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The corpus stage's links and concepts live to the end of the build: no collection walks
    # them, during the stage or after it (issue 14). The collector is back on afterwards.
    import gc

    seen: list[bool] = []
    original = kg_build.link_corpus

    def linking(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    freezes: list[bool] = []
    real_freeze = gc.freeze

    def freeze() -> None:
        freezes.append(gc.isenabled())
        real_freeze()

    monkeypatch.setattr(kg_build, "link_corpus", linking)
    monkeypatch.setattr(kg_build.gc, "freeze", freeze)
    build(tmp_path, "cold", [SMALL], tmp_path / "cache")
    assert seen == [False]
    assert freezes and not all(freezes)  # the stage's freeze came before the collector was back
    assert gc.isenabled()


def test_a_rule_change_redecides_from_the_cached_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cache"
    cold, _ = build(tmp_path, "cold", [SMALL], folder)
    texts = cold.extraction.parsed
    assert texts == 6  # three titles, three abstracts
    # A changed rule of the candidates or features (any change to kg.extract's code or data
    # but the decision models and relation patterns) is a new version of both.
    # The decisions' side alone: features from the cache, parses only where two mentions
    # of a field may be related (4 of the 6 texts here).
    monkeypatch.setattr(cache_module, "rules_version", lambda: "edited decisions")
    decisions, _ = build(tmp_path, "decisions", [SMALL], folder)
    assert decisions.extraction.prepared_hits == 3
    assert (decisions.extraction.parsed, decisions.extraction.parse_hits) == (0, 4)
    monkeypatch.setattr(cache_module, "rules_version", lambda: "edited rules")
    monkeypatch.setattr(cache_module, "feature_rules_version", lambda: "edited rules")
    changed, after_change = build(tmp_path, "changed", [SMALL], folder)
    assert changed.extraction.reused == changed.extraction.prepared_hits == 0
    assert (changed.extraction.parsed, changed.extraction.parse_hits) == (0, texts)
    # The rules ablation: other decisions, same parses, the same graph as without a cache.
    rules = ExtractorConfig(learned=False)
    ablation, with_cache = build(tmp_path, "rules", [SMALL], folder, config=rules)
    assert (ablation.extraction.parsed, ablation.extraction.parse_hits) == (0, texts)
    _, without_cache = build(tmp_path, "rules-none", [SMALL], False, config=rules)
    assert with_cache == without_cache
    assert after_change != with_cache


def test_a_threshold_change_decides_again_from_the_cached_features(
    tmp_path: Path, pipe_calls: list[int]
) -> None:
    folder = tmp_path / "cache"
    cold, default = build(tmp_path, "cold", [EXAMPLE], folder)
    assert cold.extraction.prepared_hits == 0 and cold.extraction.parsed == 19
    pipe_calls.clear()
    for accept in (0.3, 0.9):  # the shipped model's own cut is 0.7
        config = ExtractorConfig(thresholds=DecisionThresholds(accept=accept))
        moved, with_cache = build(tmp_path, f"moved{accept}", [EXAMPLE], folder, config=config)
        assert moved.extraction.reused == 0
        assert moved.extraction.prepared_hits == moved.extraction.papers == 19
        # The models' scores of the cold build's cut, kept beside the features.
        assert moved.extraction.scores_hits == 19
        # Only the parses of fields with two or more mentions, for the relation patterns.
        assert moved.extraction.parsed == 0 and 0 < moved.extraction.parse_hits <= 19
        assert pipe_calls == []
        # Deciding from prepared entries loads neither pipeline: the vocabulary reads Docs.
        extractor = cached_extractor(config)
        assert extractor._nlp is None and extractor._pending == {"gazetteer", "entity_model"}
        assert extractor._reader is not None
        assert ExtractionCache(folder).present("prepared", prepared_version(
            config, *pipeline_versions(config)) or "", ["absent", *_paper_keys()]) == set(
            _paper_keys())
        _, without_cache = build(tmp_path, f"none{accept}", [EXAMPLE], False, config=config)
        assert with_cache == without_cache != default
        pipe_calls.clear()
    assert "prepared" in ExtractionCache(folder).counts()


def _paper_keys() -> list[str]:
    return [paper_key(p) for p in read_papers([EXAMPLE]) if p.abstract]


def test_a_retrained_classifier_decides_again_from_the_cached_features(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cache"
    _, default = build(tmp_path, "cold", [EXAMPLE], folder)
    # Another decisions.json.gz: a new rules version, the same feature rules version.
    shipped = learned._shipped()
    # (Another file: another identity, so the scores the shipped model left are not read.)
    retrained = dataclasses.replace(shipped, proposes_cut=shipped.proposes_cut / 2,
                                    identity="retrained")
    monkeypatch.setattr(learned, "_shipped", lambda: retrained)
    monkeypatch.setattr(cache_module, "rules_version", lambda: "retrained")
    cached_extractor.cache_clear()
    try:
        again, with_cache = build(tmp_path, "again", [EXAMPLE], folder)
        _, without_cache = build(tmp_path, "none", [EXAMPLE], False)
    finally:
        cached_extractor.cache_clear()
    assert again.extraction.prepared_hits == 19 and again.extraction.parsed == 0
    assert again.extraction.scores_hits == 0
    assert with_cache == without_cache != default


def test_which_files_each_version_follows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "kg"
    for name in ("extract", "vocab"):
        shutil.copytree(cache_module._PACKAGE / name, package / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("normalize.py", "types.py"):
        shutil.copy(cache_module._PACKAGE / name, package / name)
    (package / "data").mkdir()
    for path in (cache_module._PACKAGE / "data").iterdir():
        if path.is_file():
            shutil.copy(path, package / "data" / path.name)
    monkeypatch.setattr(cache_module, "_PACKAGE", package)

    def versions() -> tuple[str, str]:
        return (cache_module._rules_digest(cache_module.ORCHESTRATION),
                cache_module._rules_digest(cache_module.DECISION_ONLY
                                           | cache_module.ORCHESTRATION))

    first = versions()
    assert first == (rules_version(), cache_module.feature_rules_version())
    for name in ("data/decisions.json.gz", "extract/learned.py", "extract/mentions.py",
                 "extract/relation_patterns.py"):
        with (package / name).open("ab") as f:
            f.write(b"\n")
        now = versions()
        assert now[0] != first[0] and now[1] == first[1], name
        first = now
    for name in ("extract/features.py", "extract/candidates.py", "data/gazetteer.tsv.gz",
                 "vocab/gazetteer.py"):
        with (package / name).open("ab") as f:
            f.write(b"\n")
        now = versions()
        assert now[0] != first[0] and now[1] != first[1], name
        first = now
    for name in ("extract/partition.py", "extract/cluster.py", "extract/records.py"):
        with (package / name).open("ab") as f:  # orchestration: neither version moves
            f.write(b"\n")
        assert versions() == first, name
    # The thresholds are not part of the features' version; the other switches are.
    parse, spans = pipeline_versions(ExtractorConfig())
    moved = ExtractorConfig(thresholds=DecisionThresholds(accept=0.9))
    assert (prepared_version(moved, parse, spans)
            == prepared_version(ExtractorConfig(), parse, spans) is not None)
    assert (prepared_version(ExtractorConfig(gazetteer=False), parse, spans)
            != prepared_version(ExtractorConfig(), parse, spans))
    assert prepared_version(ExtractorConfig(learned=False), parse, spans) is None


def test_a_new_pipeline_version_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    before = pipeline_versions(ExtractorConfig())
    build(tmp_path, "cold", [SMALL], folder)
    pipeline_versions.cache_clear()
    monkeypatch.setattr(spacy, "__version__", "3.99.0")
    try:
        after = pipeline_versions(ExtractorConfig())
        assert after[0] != before[0] and after[1] != before[1]
        again, _ = build(tmp_path, "again", [SMALL], folder)
    finally:
        pipeline_versions.cache_clear()
    assert again.extraction.reused == 0 and again.extraction.parsed == 6


def test_versions_follow_the_files(tmp_path: Path) -> None:
    config = ExtractorConfig()
    assert pipeline_versions(config) == pipeline_versions(ExtractorConfig())
    assert pipeline_versions(ExtractorConfig(entity_model=False))[1] is None
    assert len(rules_version()) == 32


def test_incremental_build_extracts_only_new_papers(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps(r) + "\n" for r in MORE))
    build(tmp_path, "first", [SMALL], folder)
    grown, incremental = build(tmp_path, "grown", [SMALL, more], folder)
    assert grown.extraction.reused == 3
    assert grown.extraction.parsed == 4  # the two new papers' titles and abstracts
    _, full = build(tmp_path, "full", [SMALL, more], False)
    assert incremental == full


def test_new_papers_go_to_workers_before_the_cached_records_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An incremental build with workers starts them on the new papers first, then reads the
    other papers' records while they run (kg.extract.partition.extracting), then loads what
    linking needs (`prepare_later_stages`) while they still run: the same bytes, the same
    counts as the build that reads first."""
    folder = tmp_path / "cache"
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps(r) + "\n" for r in MORE))
    build(tmp_path, "first", [SMALL], folder)
    events: list[str] = []
    started, read = kg_build.extracting, kg_build.cached_extractions

    @contextmanager
    def starting(papers, **kw):  # type: ignore[no-untyped-def]
        events.append(f"{kw['n_process']} worker on {sorted(p.id for p in papers)}, "
                      f"loading the pipelines {'first' if kw['load_first'] else 'itself'}")
        with started(papers, **kw) as results:
            yield results

    def reading(papers, *args):  # type: ignore[no-untyped-def]
        events.append(f"records of {sorted(p.id for p in papers)}")
        return read(papers, *args)

    def preparing(store: bool) -> None:
        events.append(f"later stages prepared (store: {store})")
        prepare(store)

    prepare = kg_build.prepare_later_stages
    monkeypatch.setattr(kg_build, "extracting", starting)
    monkeypatch.setattr(kg_build, "cached_extractions", reading)
    monkeypatch.setattr(kg_build, "prepare_later_stages", preparing)
    out = tmp_path / "grown.ttl"
    grown = run_build([SMALL, more], out, n_process=2, cache=folder)
    ids = sorted(p.id for p in read_papers([SMALL]))
    assert events == ["1 worker on ['q1', 'q2'], loading the pipelines itself",
                      f"records of {ids}", "later stages prepared (store: False)"]
    assert (grown.extraction.reused, grown.extraction.parsed, grown.extraction.papers) == (3, 4, 5)
    _, full = build(tmp_path, "full", [SMALL, more], False)
    assert out.read_bytes() == full


@pytest.mark.parametrize("cached", [True, False])
def test_later_stages_load_while_workers_extract(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached: bool) -> None:
    """A build whose papers go to worker processes loads what linking needs
    (`prepare_later_stages`) once, after the workers started and before their results are
    taken: this process would otherwise only wait for them (issue 14)."""
    events: list[str] = []
    started = kg_build.extracting
    prepare = kg_build.prepare_later_stages

    @contextmanager
    def starting(papers, **kw):  # type: ignore[no-untyped-def]
        events.append(f"{kw['n_process']} workers")
        with started(papers, **kw) as results:
            def taken():  # type: ignore[no-untyped-def]
                for result in results:
                    events.append("result")
                    yield result
            yield taken()

    def preparing(store: bool) -> None:
        events.append("later stages")
        prepare(store)

    monkeypatch.setattr(kg_build, "extracting", starting)
    monkeypatch.setattr(kg_build, "prepare_later_stages", preparing)
    monkeypatch.setattr(kg_build, "WORKER_BATCH", 8)  # the 19 papers: more than one batch
    folder = tmp_path / "cache" if cached else False
    run_build([EXAMPLE], tmp_path / "g.ttl", n_process=2, cache=folder)
    assert events[:2] == ["2 workers", "later stages"]
    assert events.count("later stages") == 1 and events.count("result") >= 1


def test_two_processes_fill_and_read_one_cache(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    out = tmp_path / "two.ttl"
    cold = run_build([EXAMPLE], out, n_process=2, cache=folder)
    first = out.read_bytes()
    assert cold.extraction.parsed == 19
    _, one = build(tmp_path, "one", [EXAMPLE], folder)
    assert one == first
    counts = ExtractionCache(folder).counts()
    assert counts == {"parse": 19, "prepared": 19, "record": 19, "scores": 19, "spans": 19}


def test_workers_replaced_every_two_papers_extract_what_one_process_does(tmp_path: Path) -> None:
    """`recycle_after`: the workers are replaced after 2 papers each (generations of 4 papers,
    each a pool of its own forked from this process), with and without the cache; the
    extractions are the same."""
    papers = [p for p in read_papers([EXAMPLE]) if p.abstract]
    alone = list(cached_extractor(ExtractorConfig())._run(papers, batch_size=64))
    folder = str(tmp_path / "cache")
    reused = []
    for cache in (None, folder, folder):  # no cache, filling it, from its records
        with extracting(papers, n_process=2, batch_size=2, cache=cache,
                        recycle_after=2) as stream:
            results = list(stream)
        assert len(results) > 4  # more than one generation's batches
        assert [e for r in results for e in r.extractions] == alone
        reused.append(sum(r.reused for r in results))
    assert reused == [0, 0, len(papers)]


def test_records_round_trip_real_extractions() -> None:
    papers = [p for p in read_papers([EXAMPLE]) if p.abstract]
    extractions = list(cached_extractor(ExtractorConfig())._run(papers, batch_size=64))
    assert sum(len(e.relations) for e in extractions) > 0
    for e in extractions:
        assert from_record(json.loads(json.dumps(to_record(e))), e.paper_id) == e


def test_the_cli_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kg) -> None:  # type: ignore[no-untyped-def]
    home_cache = tmp_path / "default"
    monkeypatch.setenv("KG_CACHE_DIR", str(home_cache))
    assert default_cache_dir() == home_cache
    result = kg(*["build", str(SMALL), "-o", str(tmp_path / "a.ttl"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert not home_cache.exists()
    result = kg(*["build", str(SMALL), "-o", str(tmp_path / "b.ttl"),
                     "--cache", str(tmp_path / "mine")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine" / cache_module.CACHE_FILE).is_file()
    assert "6 texts parsed" in result.stderr
    result = kg(*["build", str(SMALL), "-o", str(tmp_path / "c.ttl")])
    assert (home_cache / cache_module.CACHE_FILE).is_file()
    result = kg(*["build", str(SMALL), "-o", str(tmp_path / "d.ttl"), "--no-cache",
                     "--cache", str(tmp_path / "x")])
    assert result.exit_code == 2 and "contradict" in result.output
    assert (tmp_path / "a.ttl").read_bytes() == (tmp_path / "b.ttl").read_bytes()
