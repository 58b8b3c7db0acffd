"""Imports every command module so that it registers itself on `kg.cli.main`."""

from __future__ import annotations

# One line per command module; keep sorted.
from kg.cli import build_cmd  # noqa: F401
from kg.cli import eval_cmd  # noqa: F401
from kg.cli import query_cmd  # noqa: F401
from kg.cli import stats_cmd  # noqa: F401
from kg.cli import train_cmd  # noqa: F401
from kg.cli import viz_cmd  # noqa: F401
