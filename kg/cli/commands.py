"""Imports every command module so that it registers itself on `kg.cli.main`."""

from __future__ import annotations

# One line per command module; keep sorted.
from kg.cli import (
    analyze_cmd,  # noqa: F401
    build_cmd,  # noqa: F401
    eval_cmd,  # noqa: F401
    query_cmd,  # noqa: F401
    stats_cmd,  # noqa: F401
    train_cmd,  # noqa: F401
    viz_cmd,  # noqa: F401
)
