"""scripts/perf_doc.py: a bench script's report replaces its own section of the performance
page, dated and with its command, and leaves the rest of the page as it was."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "perf_doc.py"


@pytest.fixture
def perf_doc(load_file: Callable[[Path], ModuleType]) -> ModuleType:
    return load_file(SCRIPT)


def test_a_report_replaces_its_section_only(
    perf_doc: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text(
        "# P\n<!-- bench:build -->\nold build\n<!-- /bench:build -->\n"
        "<!-- bench:viz -->\nold viz\n<!-- /bench:viz -->\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(perf_doc, "DOC", doc)
    monkeypatch.setattr(sys, "argv", ["scripts/bench_build.py", "--rounds", "1"])
    with perf_doc.recording("build"):
        print("| median | 1.0 |")
    text = doc.read_text(encoding="utf-8")
    assert "old build" not in text and "old viz" in text
    assert "with `python scripts/bench_build.py --rounds 1`:" in text
    assert "```text\n| median | 1.0 |\n```\n<!-- /bench:build -->" in text
    assert "| median | 1.0 |" in capsys.readouterr().out  # still printed


def test_nothing_is_recorded_when_the_run_fails_or_is_not_wanted(
    perf_doc: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("<!-- bench:build -->\nkept\n<!-- /bench:build -->\n", encoding="utf-8")
    monkeypatch.setattr(perf_doc, "DOC", doc)
    with pytest.raises(RuntimeError), perf_doc.recording("build"):
        print("half a table")
        raise RuntimeError("the run failed")
    with perf_doc.recording("build", enabled=False):
        print("a trial")
    assert "kept" in doc.read_text(encoding="utf-8")
