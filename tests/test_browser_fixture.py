"""The browser harness itself: a local page renders, its JS runs, requests are recorded."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.browser
def test_page_runs_javascript_offline(page, tmp_path: Path) -> None:
    html = tmp_path / "t.html"
    html.write_text("<html><body><p id='x'>a</p><script>document.getElementById('x')"
                    ".textContent = 'b';</script></body></html>", encoding="utf-8")
    page.goto(html.as_uri())
    assert page.text_content("#x") == "b"
    assert page.console_errors == []
    assert page.requests == [html.as_uri()]
