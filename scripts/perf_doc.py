"""docs/PERFORMANCE.md is written by the bench scripts: each owns one section, between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, and replaces it with its latest report, dated
and with the command that produced it.

    with recording("build"):        # in a bench script's main(): what it prints is recorded
        print("| round | ... |")

`--no-doc` on a bench script leaves the file alone (a trial run on a sample, say).
"""

from __future__ import annotations

import datetime
import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import TextIO

DOC = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def replace_section(text: str, name: str, body: str) -> str:
    """`text` with the section `name` holding `body` (a new section is appended at the end).

    >>> replace_section("a\\n<!-- bench:x -->\\nold\\n<!-- /bench:x -->\\nb\\n", "x", "new")
    'a\\n<!-- bench:x -->\\nnew\\n<!-- /bench:x -->\\nb\\n'
    """
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text, count=1)
    return text.rstrip() + f"\n\n{block}\n"


def record(name: str, report: str, command: str, doc: Path | None = None) -> None:
    """Write `report` (what the script printed) as the section `name` of `doc` (`DOC`)."""
    doc = doc or DOC
    today = datetime.date.today().isoformat()
    body = f"Measured {today} with `{command}`:\n\n```text\n{report.rstrip()}\n```"
    doc.write_text(replace_section(doc.read_text(encoding="utf-8"), name, body), encoding="utf-8")
    print(f"recorded in {doc} (section {name})", file=sys.stderr)


class _Tee(io.StringIO):
    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(text)
        return super().write(text)


@contextmanager
def recording(name: str, *, enabled: bool = True) -> Iterator[None]:
    """Print as usual; when the block ends without an error, record what it printed."""
    tee = _Tee(sys.stdout)
    with redirect_stdout(tee):
        yield
    if enabled:
        command = "python scripts/" + " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])
        record(name, tee.getvalue(), command)
