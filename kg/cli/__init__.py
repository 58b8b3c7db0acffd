"""The `kg` command line: a thin layer over the library API.

Each command lives in its own module, opens its inputs, calls one library function and turns
`KGError`s into a clean message and exit code. Heavy imports happen inside the commands.
"""

from __future__ import annotations

import click

from kg import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
def main() -> None:
    """paperkg: build, query and view a knowledge graph of ML papers."""


def _register() -> None:
    from kg.cli import commands  # noqa: F401  (each module adds its commands to `main`)


_register()
