"""The import rule of docs/ARCHITECTURE.md, checked on the source: a stage imports the shared
modules and earlier stages only; the project's own modules are imported at the top of a file;
spaCy stays in the stages that run it, pyvis in `viz`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The pipeline, in the order a stage may import (docs/ARCHITECTURE.md).
STAGES = [
    "ingest", "vocab", "extract", "canon", "rdf", "query", "analyze", "eval", "train", "viz",
    "server", "build", "cli",
]  # fmt: skip
#: Modules every stage may import.
SHARED = {"kg", "kg.types", "kg.errors", "kg.namespaces", "kg.normalize", "kg.collector"}
#: Third-party packages confined to some stages.
CONFINED = {"spacy": {"extract", "eval", "train"}, "thinc": {"extract", "eval", "train"},
            "pyvis": {"viz"}}  # fmt: skip
#: Imports against the order, each with its reason (docs/ARCHITECTURE.md): keep this short.
BACKWARD_OK = {
    # Cross-validation trains a decision model per fold, and training the recogniser scores it
    # with kg.eval: the clean cut moves kg/eval/cv.py into kg/train (issue 16's file, left as
    # it landed while that work goes on).
    ("kg/eval/cv.py", "kg.train.decisions"),
}
#: Files whose own-module imports may stay inside functions, and why.
LAZY_OK = {
    # Being rewritten under issues 12 (ingest) and 13 (server): hoisted once those land.
    "kg/ingest/reader.py",
    "kg/server/__init__.py",
    "kg/server/handler.py",
    "kg/server/page.py",
    "kg/server/workers.py",
}


@dataclass(frozen=True)
class Import:
    path: str
    line: int
    module: str
    in_function: bool


def stage_of(module: str) -> str | None:
    """The stage a module belongs to, "shared", or None (not the project's)."""
    parts = module.split(".")
    if parts[0] == "viz":
        return "viz"
    if parts[0] == "queries":
        return "query"
    if parts[0] != "kg":
        return None
    if module in SHARED or len(parts) == 1:
        return "shared"
    return "build" if parts[1] == "build" else parts[1]


def sources() -> Iterator[Path]:
    for folder in ("kg", "viz", "queries"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def imports(path: Path) -> Iterator[Import]:
    """Every import in `path`, with `from kg import x` read as module `kg.x` when x is one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(sub) for sub in ast.walk(node) if sub is not node)
    rel = path.relative_to(ROOT).as_posix()
    for node in ast.walk(tree):
        inside = id(node) in in_function
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(rel, node.lineno, alias.name, inside)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                is_module = (ROOT / (sub.replace(".", "/") + ".py")).is_file() or (
                    ROOT / sub.replace(".", "/")
                ).is_dir()
                yield Import(rel, node.lineno, sub if is_module else node.module, inside)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def test_every_module_belongs_to_a_stage_or_is_shared() -> None:
    unknown = {
        module_of(p) for p in sources() if stage_of(module_of(p)) not in [*STAGES, "shared"]
    }
    assert not unknown, f"add these to a stage (docs/ARCHITECTURE.md): {sorted(unknown)}"


def test_a_stage_imports_shared_modules_and_earlier_stages_only() -> None:
    wrong = []
    for path in sources():
        here = stage_of(module_of(path))
        for imp in imports(path):
            there = stage_of(imp.module)
            if there is None or there == here or there == "shared":
                continue
            if (imp.path, imp.module) in BACKWARD_OK:
                continue
            if here == "shared" or STAGES.index(there) > STAGES.index(here):
                wrong.append(f"{imp.path}:{imp.line}: {here} imports {imp.module} ({there})")
    assert not wrong, "\n".join(wrong)


def test_viz_uses_the_public_query_api() -> None:
    wrong = [
        f"{imp.path}:{imp.line}: {imp.module}"
        for path in sources()
        if module_of(path).startswith("viz")
        for imp in imports(path)
        if imp.module.startswith("kg.query.")
    ]
    assert not wrong, "viz imports kg.query's public names only:\n" + "\n".join(wrong)


def test_own_modules_are_imported_at_the_top() -> None:
    hidden = [
        f"{imp.path}:{imp.line}: {imp.module}"
        for path in sources()
        for imp in imports(path)
        if imp.in_function and stage_of(imp.module) is not None and imp.path not in LAZY_OK
    ]
    assert not hidden, "import these at the top of the file:\n" + "\n".join(hidden)


@pytest.mark.parametrize("package", sorted(CONFINED))
def test_heavy_packages_stay_in_their_stages(package: str) -> None:
    wrong = [
        f"{imp.path}:{imp.line}: {imp.module}"
        for path in sources()
        for imp in imports(path)
        if imp.module.split(".")[0] == package
        and stage_of(module_of(path)) not in CONFINED[package]
    ]
    assert not wrong, "\n".join(wrong)
