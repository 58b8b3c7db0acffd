"""The `kg` command line: a thin layer over the library API.

Each command lives in its own module (listed in `COMMANDS`, imported when the command runs), opens
its inputs, calls one library function and prints the result. Errors have one boundary, here:
a `KGError` from any command, or from the parsing of its options, is printed as
`kg <command>: error: <message>` and the command exits with the error's `exit_code`.
A new command: a module `kg/cli/<name>_cmd.py` defining a `click.command`, and a line in
`COMMANDS`.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections import Counter
from typing import Any

import click

from kg import __version__
from kg.errors import InputError, KGError

#: Command name -> "module:attribute" of its click command.
COMMANDS = {
    "analyze": "kg.cli.analyze_cmd:analyze_command",
    "build": "kg.cli.build_cmd:build",
    "eval": "kg.cli.eval_cmd:eval_group",
    "load": "kg.cli.load_cmd:load_command",
    "queries": "kg.cli.query_cmd:queries_command",
    "query": "kg.cli.query_cmd:query_command",
    "review": "kg.cli.review_cmd:review_command",
    "serve": "kg.cli.serve_cmd:serve_command",
    "stats": "kg.cli.stats_cmd:stats_command",
    "train": "kg.cli.train_cmd:train_command",
    "viz": "kg.cli.viz_cmd:viz_command",
}


class Group(click.Group):
    """A click group whose commands load on first use and whose `KGError`s end cleanly."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KGError as exc:
            path = " ".join(p for p in (ctx.command_path, ctx.invoked_subcommand) if p)
            click.echo(f"{path}: error: {exc}", err=True)
            ctx.exit(exc.exit_code)


@click.group(
    "kg",
    cls=Group,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="kg")
@click.option("-v", "--verbose", is_flag=True, help="Also log progress details (INFO).")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only (no warnings).")
def main(verbose: bool, quiet: bool) -> None:
    """paperkg: build, query and view a knowledge graph of ML papers."""
    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    handler = _log_to_stderr(level)
    if not verbose:
        cap = WarningCap(PER_SOURCE_WARNINGS)
        handler.addFilter(cap)
        click.get_current_context().call_on_close(lambda: _report_hidden(cap, handler))


PER_SOURCE_WARNINGS = 10
"""Warnings of one kind (skipped record, duplicate id, ...) shown per input file; the rest
are counted and summarised at the end (`-v` shows every one)."""


class WarningCap(logging.Filter):
    """Lets through the first `limit` records of each (kind, input file) — records the readers
    tag with `kg_kind` and `kg_source` — and counts the rest, so that a corpus with thousands
    of bad records does not bury the build's output. Untagged records always pass."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.seen: Counter[tuple[str, str]] = Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        kind = getattr(record, "kg_kind", None)
        source = getattr(record, "kg_source", None)
        if kind is None or source is None:
            return True
        key = (str(kind), str(source))
        self.seen[key] += 1
        return self.seen[key] <= self.limit

    def hidden(self) -> list[tuple[str, str, int]]:
        """(kind, file, how many were not shown), in the order first seen."""
        return [(kind, source, n - self.limit)
                for (kind, source), n in self.seen.items() if n > self.limit]


def _report_hidden(cap: WarningCap, handler: logging.Handler) -> None:
    for kind, source, count in cap.hidden():
        handler.handle(logging.LogRecord(
            "kg", logging.WARNING, __file__, 0,
            "%s: %d more %s warnings not shown (-v shows every one)",
            (source, count, kind), None))


def _log_to_stderr(level: int) -> logging.Handler:
    """Send the library's log records (logger "kg") to stderr; records still propagate, so
    an application or test that configures logging sees them too."""
    logger = logging.getLogger("kg")
    logger.setLevel(level)
    for existing in logger.handlers:
        if getattr(existing, "_kg_cli", False) and isinstance(existing, logging.StreamHandler):
            existing.setStream(sys.stderr)  # the current one (a test runner swaps it)
            for old in list(existing.filters):
                existing.removeFilter(old)
            return existing
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("kg: %(levelname)s: %(message)s"))
    handler._kg_cli = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    return handler


def _split_params(
    ctx: click.Context, param: click.Parameter, pairs: tuple[str, ...]
) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--param takes NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values


def param_option(help: str) -> Any:
    """The `-p/--param NAME=VALUE` option (repeatable), given to the command as a dict."""
    return click.option(
        "-p",
        "--param",
        "params",
        multiple=True,
        metavar="NAME=VALUE",
        callback=_split_params,
        help=help,
    )
