"""The `kg` command line as a whole: every command has help, every failure ends the same way
(`kg <command>: error: …`, the error's exit code), `--param` reads the same everywhere, and the
old `kg eval` forms still work."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from kg.cli import Group, main
from kg.errors import InputError, StoreError

FIXTURES = Path(__file__).parent / "fixtures"
GRAPH = FIXTURES / "query_graph.ttl"
Kg = Callable[..., Result]


def commands(group: click.Group, path: str = "kg") -> Iterator[tuple[str, click.Command]]:
    """Every command and subcommand, with its full name."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{path} {name}")


ALL = dict(commands(main))


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_command_and_option_has_help(name: str, kg: Kg) -> None:
    command = ALL[name]
    assert command.help, f"{name} has no help text"
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts[0]} has no help text"
    result = kg(*name.split()[1:], "--help")
    assert result.exit_code == 0 and f"Usage: {name} " in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["stats", "missing.ttl"], 2, "kg stats: error: missing.ttl: no such file"),
        (["query", "missing.ttl", "top-concepts"], 2,
         "kg query: error: missing.ttl: no such graph file or store folder"),
        (["queries", "no-such-query"], 2, "kg queries: error: no named query 'no-such-query'"),
        (["viz", "missing.ttl"], 2, "kg viz: error: missing.ttl: no such file"),
        (["load", str(GRAPH)], 2, "kg load: error: give exactly one of --store DIR and --endpoint"),
        (["query", str(GRAPH), "papers-using", "-p", "oops"], 2,
         "kg query: error: --param takes NAME=VALUE, got 'oops'"),
        (["viz", str(GRAPH), "--query", "papers-using", "-p", "oops"], 2,
         "kg viz: error: --param takes NAME=VALUE, got 'oops'"),
        (["eval", "graph", str(GRAPH), str(GRAPH)], 2, "kg eval graph: error: "),
    ],
)  # fmt: skip
def test_every_error_is_one_line_prefixed_by_the_command(
    args: list[str], code: int, message: str, kg: Kg
) -> None:
    result = kg(*args)
    assert (result.exit_code, result.stdout) == (code, "")
    assert result.stderr.startswith(message), result.stderr
    assert isinstance(result.exception, SystemExit)  # no traceback


def test_the_boundary_is_the_group_s_so_new_commands_get_it() -> None:
    group = Group(name="kg")

    @group.command("boom")
    def boom() -> None:
        """Fail."""
        raise StoreError("the store failed")

    @group.command("bad")
    def bad() -> None:
        """Fail on input."""
        raise InputError("no such thing", source="x.ttl")

    runner = CliRunner()
    result = runner.invoke(group, ["boom"], prog_name="kg")
    assert (result.exit_code, result.stderr) == (1, "kg boom: error: the store failed\n")
    result = runner.invoke(group, ["bad"], prog_name="kg")
    assert (result.exit_code, result.stderr) == (2, "kg bad: error: x.ttl: no such thing\n")


def test_old_eval_forms_still_work_with_a_warning(kg: Kg, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('{"papers": []}', encoding="utf-8")
    new = kg("eval", "graph", "--no-details", GRAPH, gold)
    old = kg("eval", "--no-details", GRAPH, gold)
    assert old.stdout == new.stdout and old.exit_code == new.exit_code
    assert "deprecated; use `kg eval graph GRAPH GOLD`" in old.stderr
    assert "deprecated" not in new.stderr
    wrong = kg("eval", GRAPH, GRAPH, GRAPH)
    assert wrong.exit_code == 2 and "give `graph GRAPH GOLD` or `ner CORPUS`" in wrong.stderr


def test_warnings_are_capped_per_input_file_and_summarised(kg, tmp_path: Path) -> None:
    """A file with many bad records shows the first ten skips and then one line that counts
    the rest; `-v` shows every one; the graph is built from the valid record."""
    lines = ['{"id": "ok", "title": "A", "abstract": "We propose a method for parsing."}']
    lines += ['{"note": "no paper here"}'] * 14
    path = tmp_path / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "g.ttl"

    result = kg("build", path, "-o", out, "--no-progress")

    assert result.exit_code == 0, result.stderr
    skips = [line for line in result.stderr.splitlines() if ": skipped: " in line]
    assert len(skips) == 10
    assert skips[0].startswith(f"kg: WARNING: {path}, record 2: skipped: ")
    assert f"kg: WARNING: {path}: 4 more skipped record warnings not shown (-v shows every one)" \
        in result.stderr.splitlines()
    assert out.exists()

    verbose = kg("-v", "build", path, "-o", tmp_path / "v.ttl", "--no-progress")
    assert verbose.exit_code == 0, verbose.stderr
    assert sum(": skipped: " in line for line in verbose.stderr.splitlines()) == 14
    assert "not shown" not in verbose.stderr
