"""Shared fixtures. Tests that need `../shared` skip with a reason when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
EXAMPLE = ROOT / "examples" / "iclr2025_abstracts.txt"


@pytest.fixture
def shared_data() -> Path:
    """`../shared/data`, or skip: a fresh clone without it still passes."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (it is present in CI)")
    return SHARED_DATA
