"""Browser tests: the operator console and the 3D view in a real headless Chromium, driven
by Playwright's Python API with Debian's chromium (``executable_path``: no browser
download). Run by ``make test-browser`` (and CI), never by ``make test`` (pytest's testpaths
is tests/). Screenshots go to ``out/browser/``."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

CHROMIUM = os.environ.get("MILES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--no-first-run",
    # The machine's network is closed: no background connections, no component updates.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # WebGL without a GPU (the 3D view): SwiftShader's software renderer.
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no chromium at {CHROMIUM}: `make test-browser` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def shots() -> Path:
    folder = ROOT / "out" / "browser"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
