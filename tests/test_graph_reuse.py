"""Writing a graph again by copying its unchanged paper regions from the previous one
(`kg.rdf.reuse`, issue 14): always the bytes of a full build without cache."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode

from kg.build import run_build
from kg.ingest import read_papers
from kg.rdf.canonical import Region, TripleBuffer
from kg.rdf.reuse import INDEX_FILE

from .conftest import EXAMPLE

pytestmark = pytest.mark.model


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """The example's 19 papers as JSON Lines rows."""
    return [{"id": p.id, "title": p.title, "abstract": p.abstract, "authors": list(p.authors)}
            for p in read_papers([EXAMPLE])]


def _build(inputs: list[Path], out: Path, cache: Path | bool) -> tuple[bytes, tuple[int, int]]:
    """The graph's bytes and (regions copied, regions in all) of a build with `cache`."""
    details: dict[str, str] = {}
    run_build(inputs, out, n_process=1, cache=cache,
              on_stage=lambda name, _s, detail: details.__setitem__(name, detail))
    found = re.search(r"(\d+) of (\d+) paper regions copied", details["writing"])
    counts = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    return out.read_bytes(), counts


def _full(inputs: list[Path], tmp_path: Path, suffix: str = ".ttl") -> bytes:
    """A build of `inputs` without cache (nothing copied)."""
    out = tmp_path / f"full{suffix}"
    run_build(inputs, out, n_process=1, cache=False)
    return out.read_bytes()


def test_new_papers_copy_the_old_papers_regions(tmp_path: Path, rows: list[dict]) -> None:
    old = _write(tmp_path / "old.jsonl", rows[:15])
    new = _write(tmp_path / "new.jsonl", rows[15:])
    cache, out = tmp_path / "cache", tmp_path / "graph.ttl"
    _, first = _build([old], out, cache)
    assert first[0] == 0 and first[1] >= 14  # nothing to copy from yet
    assert (cache / INDEX_FILE).exists()
    grown, (copied, regions) = _build([old, new], out, cache)
    assert grown == _full([old, new], tmp_path)
    assert 10 <= copied <= first[1] < regions  # the new papers' regions are made
    again, (copied, regions) = _build([old, new], out, cache)
    assert again == grown and copied == regions


def test_an_edited_paper_is_made_again(tmp_path: Path, rows: list[dict]) -> None:
    cache, out = tmp_path / "cache", tmp_path / "graph.ttl"
    first = _write(tmp_path / "a.jsonl", rows)
    _, (_, regions) = _build([first], out, cache)
    edited = [dict(row) for row in rows]
    edited[3]["abstract"] = edited[3]["abstract"] + " We also evaluate on ImageNet."
    second = _write(tmp_path / "b.jsonl", edited)
    graph, (copied, now) = _build([second], out, cache)
    assert graph == _full([second], tmp_path)
    assert now == regions and copied < regions  # at least the edited paper's is made


def test_a_removed_input_file(tmp_path: Path, rows: list[dict]) -> None:
    old = _write(tmp_path / "old.jsonl", rows[:12])
    more = _write(tmp_path / "more.jsonl", rows[12:])
    cache, out = tmp_path / "cache", tmp_path / "graph.ttl"
    _build([old, more], out, cache)
    shrunk, (copied, regions) = _build([old], out, cache)
    assert shrunk == _full([old], tmp_path)
    assert copied > 0 and regions < 19


def test_a_changed_previous_graph_is_never_copied_from(tmp_path: Path, rows: list[dict]) -> None:
    data = _write(tmp_path / "a.jsonl", rows)
    cache, out = tmp_path / "cache", tmp_path / "graph.ttl"
    good, (_, regions) = _build([data], out, cache)
    # One evidence text of the previous graph altered, its length kept.
    at = good.index(b'kg:text "', good.index(b"/evidence/")) + len(b'kg:text "')
    out.write_bytes(good[:at] + (b"X" if good[at:at + 1] != b"X" else b"Y") + good[at + 1:])
    again, (copied, now) = _build([data], tmp_path / "other.ttl", cache)
    assert again == good
    assert copied == regions - 1 and now == regions
    # The previous graph gone: everything is made.
    (tmp_path / "other.ttl").unlink()
    made, (copied, _) = _build([data], tmp_path / "third.ttl", cache)
    assert made == good and copied == 0


def test_n_triples_and_a_change_of_format(tmp_path: Path, rows: list[dict]) -> None:
    data = _write(tmp_path / "a.jsonl", rows)
    cache = tmp_path / "cache"
    first, _ = _build([data], tmp_path / "g.nt", cache)
    second, (copied, regions) = _build([data], tmp_path / "h.nt", cache)
    assert first == second == _full([data], tmp_path, ".nt")
    assert copied == regions > 0
    turtle, (copied, _) = _build([data], tmp_path / "g.ttl", cache)  # an index of N-Triples
    assert copied == 0 and turtle == _full([data], tmp_path)


def test_a_gzipped_graph_is_written_whole(tmp_path: Path, rows: list[dict]) -> None:
    data = _write(tmp_path / "a.jsonl", rows[:5])
    cache = tmp_path / "cache"
    _build([data], tmp_path / "g.ttl", cache)
    _, counts = _build([data], tmp_path / "g.ttl.gz", cache)
    assert counts == (0, 0)  # not written by regions at all


P = "https://example.org/paper/a"


def _buffer(extra: str) -> TripleBuffer:
    """A buffer with a range under `P/` and, under the same prefix, a subject of its own."""
    buf = TripleBuffer()
    label = NamedNode("https://example.org/label")
    buf.add(P, label, Literal("paper"), "paper")
    buf.add(P + "/relation/1", label, Literal(extra), extra)
    buf.add("https://example.org/z", label, Literal("z"), "z")

    def make() -> list[tuple[str, list]]:
        from pyoxigraph import Triple
        return [(P + "/evidence/2", [Triple(NamedNode(P + "/evidence/2"), label, Literal("e"))]),
                (P + "/evidence/1", [Triple(NamedNode(P + "/evidence/1"), label, Literal("d"))])]

    buf.add_lazy_range(P + "/", make, digest=b"inputs")
    return buf


def _segments(buf: TripleBuffer) -> list[list[str] | Region]:
    """The segments, each used up as a writer does (a region's triples not made yet)."""
    return [s if isinstance(s, Region) else [t.subject.value for t in s]
            for s in buf.iter_segments()]


def test_a_region_holds_every_subject_under_its_prefix() -> None:
    segments = _segments(_buffer("r"))
    assert [type(s).__name__ for s in segments] == ["list", "Region", "list"]
    assert segments[0] == [P] and segments[2] == ["https://example.org/z"]
    region = segments[1]
    assert isinstance(region, Region)
    subjects = [t.subject.value for t in region.triples()]
    assert subjects == [P + "/evidence/1", P + "/evidence/2", P + "/relation/1"]
    whole = [t.subject.value for t in _buffer("r").iter_triples()]
    assert whole == [P, *subjects, "https://example.org/z"]


def test_a_region_digest_follows_its_own_subjects() -> None:
    def digest(extra: str) -> bytes | None:
        region = _segments(_buffer(extra))[1]
        assert isinstance(region, Region)
        return region.digest()

    assert digest("r") == digest("r")
    assert digest("r") != digest("s")
