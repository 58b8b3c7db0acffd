"""Pages and graphs are written through one temporary-file-and-rename helper
(`kg.rdf.serialize.replacing`): a full disk gives a clean error and keeps the old file, and no
temporary file is left behind (issue 13, findings 6 and 11)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kg.errors import KGError
from kg.rdf.serialize import replacing, write_atomically

FIXTURE = Path(__file__).parent / "fixtures" / "viz_graph.ttl"
KG = Path(sys.executable).with_name("kg")


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _small_disk() -> None:
    """In the child: files may not grow past 64 KiB (EFBIG, as a full disk gives ENOSPC)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65_536, 65_536))


def test_kg_viz_on_a_full_disk_keeps_the_old_page(tmp_path: Path) -> None:
    page = tmp_path / "graph.html"
    page.write_text("the old page")
    result = subprocess.run(
        [str(KG), "viz", str(FIXTURE), "-o", str(page)],
        capture_output=True, text=True, timeout=300, preexec_fn=_small_disk,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert f"{page}: cannot write the page (File too large)" in result.stderr
    assert page.read_text() == "the old page"
    assert _hidden(tmp_path) == []


def test_kg_viz_writes_the_page(tmp_path: Path) -> None:
    page = tmp_path / "graph.html"
    result = subprocess.run(
        [str(KG), "viz", str(FIXTURE), "-o", str(page)], capture_output=True, text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert page.read_text().startswith("<!DOCTYPE html>") or "<html" in page.read_text()
    assert oct(page.stat().st_mode & 0o777) == "0o644"
    assert _hidden(tmp_path) == []


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    target.write_text("old")
    with pytest.raises(RuntimeError), replacing(target) as raw:
        raw.write(b"half a pa")
        raise RuntimeError("killed halfway")
    assert target.read_text() == "old" and _hidden(tmp_path) == []
    with pytest.raises(KGError, match=r"out\.html: cannot write the page"):
        write_atomically(tmp_path / "missing" / "out.html", "x", "the page")


def test_leftovers_of_killed_writes_are_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    stale = tmp_path / f".out.html.{dead.stdout.strip()}.x1y2.partial"
    live = tmp_path / f".out.html.{os.getpid()}.z3.partial"  # a write still running
    other = tmp_path / ".out.html.bak"
    for path in (stale, live, other):
        path.write_text("partial")
    write_atomically(tmp_path / "out.html", "new")
    assert (tmp_path / "out.html").read_text() == "new"
    assert _hidden(tmp_path) == sorted([live.name, other.name])
