"""The `kg` command line: a thin layer over the library API.

Each command lives in its own module, opens its inputs, calls one library function and turns
`KGError`s into a clean message and exit code. Heavy imports happen inside the commands.
"""

from __future__ import annotations

import logging

import click

from kg import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
@click.option("-v", "--verbose", is_flag=True, help="Also log progress details (INFO).")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only (no warnings).")
def main(verbose: bool, quiet: bool) -> None:
    """paperkg: build, query and view a knowledge graph of ML papers."""
    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    _log_to_stderr(level)


def _log_to_stderr(level: int) -> None:
    """Send the library's log records (logger "kg") to stderr; records still propagate, so
    an application or test that configures logging sees them too."""
    logger = logging.getLogger("kg")
    logger.setLevel(level)
    if not any(getattr(h, "_kg_cli", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("kg: %(levelname)s: %(message)s"))
        handler._kg_cli = True  # type: ignore[attr-defined]
        logger.addHandler(handler)


def _register() -> None:
    from kg.cli import commands  # noqa: F401  (each module adds its commands to `main`)


_register()
