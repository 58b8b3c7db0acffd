"""Shared fixtures. Tests that need `../shared` skip with a reason when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
EXAMPLE = ROOT / "examples" / "iclr2025_abstracts.txt"


@pytest.fixture
def shared_data() -> Path:
    """`../shared/data`, or skip: a fresh clone without it still passes."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (it is present in CI)")
    return SHARED_DATA


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # Chromium refuses to run as root otherwise
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    """Headless Debian Chromium driven by Playwright (never a downloaded browser).

    `make test` installs /usr/bin/chromium when it is missing (scripts/ensure-chromium.sh).
    """
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    """A fresh page that records console errors and every network request it makes.

    `page.console_errors` and `page.requests` (URLs) are lists the test can assert on.
    """
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.requests = []  # type: ignore[attr-defined]
    pg.on(
        "console",
        lambda msg: pg.console_errors.append(msg.text) if msg.type == "error" else None,  # type: ignore[attr-defined]
    )
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))  # type: ignore[attr-defined]
    pg.on("request", lambda req: pg.requests.append(req.url))  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()
