"""The docs list what the code has (datasette's tests/test_docs.py): every named query is in
the table of docs/QUERIES.md, every command in README.md's command table, and neither table
names something that is gone."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from kg.cli import main
from kg.query import named

ROOT = Path(__file__).resolve().parents[1]


def table_names(path: Path, heading: str) -> list[str]:
    """The backticked names in the first column of the first table under `heading`."""
    text = path.read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    names = []
    for line in section.splitlines():
        if line.startswith("## ") or (names and not line.startswith("|")):
            break
        if line.startswith("| `"):
            names += re.findall(r"`([^`]+)`", line.split(" | ")[0])
    return names


def command_paths(group: click.Group, path: str = "kg") -> list[str]:
    """`kg NAME` of every command; a group's subcommands instead of the group."""
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            found += command_paths(command, f"{path} {name}")
        else:
            found.append(f"{path} {name}")
    return found


QUERY_TABLE = table_names(ROOT / "docs" / "QUERIES.md", "## Named queries")
COMMAND_TABLE = [n for n in table_names(ROOT / "README.md", "## Commands") if n.startswith("kg ")]
COMMANDS = command_paths(main)


@pytest.mark.parametrize("name", named.names())
def test_every_named_query_is_in_the_docs(name: str) -> None:
    assert name in QUERY_TABLE, f"add `{name}` to the table of docs/QUERIES.md#named-queries"


def test_the_query_table_names_only_queries_that_exist() -> None:
    assert sorted(set(QUERY_TABLE) - set(named.names())) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    documented = [entry for entry in COMMAND_TABLE if re.match(rf"{command}( |$)", entry)]
    assert documented, f"add `{command} …` to README.md's command table"


def test_the_command_table_names_only_commands_that_exist() -> None:
    stale = [e for e in COMMAND_TABLE if not any(re.match(rf"{c}( |$)", e) for c in COMMANDS)]
    assert stale == []
