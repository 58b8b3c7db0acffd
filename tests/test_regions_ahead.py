"""Regions made ahead of the graph's writer in a forked process (`kg.rdf.ahead`, issue 14):
always the bytes of the writer making every region itself, whatever the child does."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Triple, serialize

import kg.rdf.ahead as ahead
import kg.rdf.reuse as reuse
from kg.build import run_build
from kg.rdf.ahead import RegionsAhead
from kg.rdf.canonical import LazyRange, Segments, TripleBuffer, range_blocks
from kg.rdf.formats import GraphFormat

from .conftest import EXAMPLE

NEVER = 10**9


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts the regions the writer took from the child ("child"), the planned ones it made
    itself ("writer"), and the child's regions joined with subjects of the buffer's own
    ("joined"). Two cores, whatever this machine has: the child is the point; and the writer
    waits for each of the child's regions (it does not when it runs ahead of the child: which
    ones each process makes would depend on timing)."""
    counts: Counter[str] = Counter()
    take = RegionsAhead.take

    def counted(self: RegionsAhead, index: int) -> ahead.Made | None:
        made = take(self, index)
        counts["child" if made is not None else "writer"] += 1
        return made

    joined = reuse._joined

    def spied(region, made, header, fmt):  # type: ignore[no-untyped-def]
        found = joined(region, made, header, fmt)
        counts["joined"] += bool(region.own_subjects and found is not None)
        return found

    monkeypatch.setattr(RegionsAhead, "take", counted)
    monkeypatch.setattr(reuse, "_joined", spied)
    monkeypatch.setattr(ahead, "_cores", lambda: 2)
    monkeypatch.setattr(ahead, "_ready", lambda _: True)
    return counts


def _build(out: Path, cache: Path, at: int, monkeypatch: pytest.MonkeyPatch,
           stages: dict[str, str] | None = None, processes: int = 2) -> bytes:
    monkeypatch.setattr(reuse, "AHEAD_AT", at)
    run_build([EXAMPLE], out, n_process=processes, cache=cache,
              on_stage=lambda name, _s, what: (stages if stages is not None else {}).__setitem__(
                  name, what))
    return out.read_bytes()


@pytest.mark.model
@pytest.mark.parametrize("suffix", [".ttl", ".nt"])
def test_regions_made_ahead_are_the_writers_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: Counter[str], suffix: str
) -> None:
    alone = _build(tmp_path / f"alone{suffix}", tmp_path / "c1", NEVER, monkeypatch)
    assert spy == Counter()  # too few regions: no child
    out, stages = tmp_path / f"ahead{suffix}", {}
    assert _build(out, tmp_path / "c2", 1, monkeypatch, stages) == alone
    assert spy["child"] == 19 and spy["writer"] == 0  # every paper's region, from the child
    assert stages["writing"].endswith("0 of 19 paper regions copied from the previous graph, "
                                      "19 made ahead by a second process")
    assert spy["joined"] >= 5  # papers with relation evidence of the buffer's own
    # The index the child's regions went into lets the next build copy every one.
    spy.clear()
    assert _build(out, tmp_path / "c2", 1, monkeypatch) == alone
    assert spy == Counter()  # nothing new to make: no child
    # One process asked for: the writer makes every region itself.
    assert _build(tmp_path / f"one{suffix}", tmp_path / "c3", 1, monkeypatch,
                  processes=1) == alone
    assert spy == Counter()


@pytest.mark.model
def test_a_child_failing_leaves_the_rest_to_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: Counter[str]
) -> None:
    alone = _build(tmp_path / "alone.ttl", tmp_path / "c1", NEVER, monkeypatch)
    parent, calls = os.getpid(), [0]

    def second_fails(lazy: LazyRange) -> list:
        if os.getpid() != parent:  # in the child only (its own copy of `calls`)
            calls[0] += 1
            if calls[0] == 2:
                raise ValueError("a range the child cannot make")
        return range_blocks(lazy)

    monkeypatch.setattr(ahead, "range_blocks", second_fails)
    assert _build(tmp_path / "ahead.ttl", tmp_path / "c2", 1, monkeypatch) == alone
    assert spy["child"] == 1 and spy["writer"] == 18


@pytest.mark.model
def test_a_killed_child_leaves_the_rest_to_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: Counter[str]
) -> None:
    alone = _build(tmp_path / "alone.ttl", tmp_path / "c1", NEVER, monkeypatch)
    start = RegionsAhead.start.__func__  # type: ignore[attr-defined]
    children: list[int] = []

    def killed(cls: type[RegionsAhead], *args: object, **kwargs: object) -> RegionsAhead | None:
        started = start(cls, *args, **kwargs)
        assert started is not None
        os.kill(started.pid, signal.SIGKILL)
        children.append(started.pid)
        return started

    monkeypatch.setattr(RegionsAhead, "start", classmethod(killed))
    assert _build(tmp_path / "ahead.ttl", tmp_path / "c2", 1, monkeypatch) == alone
    assert spy["child"] + spy["writer"] == 19 and len(children) == 1
    with pytest.raises(ChildProcessError):  # waited for: no zombie left
        os.waitpid(children[0], os.WNOHANG)


P = "https://example.org/paper/a"
LABEL = NamedNode("https://example.org/label")


def _buffer() -> TripleBuffer:
    """A paper's range (three evidence nodes) and, under its prefix, two subjects of the
    buffer's own: one the range also makes (the buffer's triples are written), one not."""
    buf = TripleBuffer()
    buf.add(P, LABEL, Literal("paper"), "paper")
    buf.add(P + "/evidence/2", LABEL, Literal("own"), "own")
    buf.add(P + "/relation/1", LABEL, Literal("r .\nr"), "r .\nr")
    buf.add("https://example.org/z", LABEL, Literal("z"), "z")

    def make() -> list[tuple[str, list[Triple]]]:
        return [(P + f"/evidence/{i}", [Triple(NamedNode(P + f"/evidence/{i}"), LABEL,
                                               Literal(f"made {i}"))]) for i in (3, 1, 2)]

    buf.add_lazy_range(P + "/", make, digest=b"inputs")
    return buf


@pytest.mark.parametrize("fmt", [GraphFormat.TURTLE, GraphFormat.NTRIPLES])
def test_a_subject_of_both_the_buffer_and_its_range_is_the_buffers(
    tmp_path: Path, spy: Counter[str], fmt: GraphFormat
) -> None:
    def write(at: int, name: str) -> bytes:
        out = tmp_path / f"{name}.{fmt.value}"
        reuse.write_reusing(Segments(_buffer), out, fmt, tmp_path / name, ahead_at=at)
        return out.read_bytes()

    alone = write(NEVER, "alone")
    assert write(1, "ahead") == alone
    assert spy["child"] == 1 and spy["joined"] == 1
    assert b'"own"' in alone and b'"made 2"' not in alone and b'"made 3"' in alone


def _rendered(fmt: GraphFormat, subjects: dict[str, list[str]]) -> tuple[bytes, list[int]]:
    triples = [Triple(NamedNode(s), LABEL, Literal(text))
               for s, texts in subjects.items() for text in texts]
    data = serialize(triples, None, fmt.rdf_format)
    assert data is not None
    return data, [len(texts) for texts in subjects.values()]


@pytest.mark.parametrize("fmt", [GraphFormat.TURTLE, GraphFormat.NTRIPLES])
def test_statements_are_cut_at_each_subjects_end(fmt: GraphFormat) -> None:
    subjects = {"https://e.org/a": ["one .\n two", "x"], "https://e.org/b": ["y ."],
                "https://e.org/c": ["p", "q", "r"]}
    data, counts = _rendered(fmt, subjects)
    ends = reuse._statement_ends(data, counts, fmt)
    assert ends is not None and ends[-1] == len(data)
    cut = [data[start:end] for start, end in zip([0, *ends], ends, strict=False)]
    for piece, (subject, texts) in zip(cut, subjects.items(), strict=True):
        assert piece == _rendered(fmt, {subject: texts})[0]
    assert reuse._statement_ends(data, [*counts, 1], fmt) is None  # a subject too many
    assert reuse._statement_ends(data, counts[:-1], fmt) is None  # bytes left over


@pytest.mark.model
def test_a_writer_ahead_of_the_child_makes_regions_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: Counter[str]
) -> None:
    alone = _build(tmp_path / "alone.ttl", tmp_path / "c1", NEVER, monkeypatch)
    monkeypatch.setattr(ahead, "_ready", lambda _: False)  # never a region ready in time
    assert _build(tmp_path / "ahead.ttl", tmp_path / "c2", 1, monkeypatch) == alone
    assert spy["child"] == 0 and spy["writer"] == 19


def test_a_plan_too_small_or_without_fork_makes_no_child(monkeypatch: pytest.MonkeyPatch) -> None:
    def start(at: int) -> RegionsAhead | None:
        render: Callable[[list[Triple]], bytes] = lambda _: b""  # noqa: E731
        return RegionsAhead.start([], [0, 1], render, lambda *_: None, at)

    monkeypatch.setattr(ahead, "_cores", lambda: 2)
    assert start(3) is None
    monkeypatch.setattr(ahead, "_cores", lambda: 1)
    assert start(1) is None
    monkeypatch.setattr(ahead, "_cores", lambda: 2)
    monkeypatch.delattr(os, "fork")
    assert start(1) is None
