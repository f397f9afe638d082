"""Browser tests of the console: Playwright driving Debian's chromium (never `playwright install`),
against a real `mcv serve` process on loopback whose log is kept for the tests to read."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from console_helpers import Served
from playwright.sync_api import Browser, Page, expect, sync_playwright

from engine_needs import unavailable

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCRIPT = "from mcv_pipelines.cli.main import main; raise SystemExit(main())"
# What a user sees within seconds may take longer on a loaded CI machine: Playwright's 5 s default
# failed the first check of the pipeline page once at load 8 on 2 cores (the checker's answer came late).
expect.set_options(timeout=20_000)


def _chromium() -> str:
    """Debian's full chromium, which Playwright drives here; the web engine prefers the headless shell,
    so this is asked of the program itself: a `chromium` on PATH may be something else (issue 39)."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path is None:
            continue
        try:
            said = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            said = ""
        if re.match(r"Chromium \d+\.", said.strip()):
            return path
    unavailable("needs Debian's chromium for the console's browser test (apt-get install -y chromium, or run "
                ".ci/run); no program named chromium here answers as Chromium")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's chromium for this module only. Not pytest-playwright's session-wide browser: its
    Playwright keeps an event loop on the main thread until the session ends, and every later test
    that calls asyncio.run (the CLI's) would fail."""
    path = _chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    """A fresh tab in a fresh context (its own sessionStorage) for each test."""
    context = chromium.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = tmp_path_factory.mktemp("console-service")
    command = [
        sys.executable, "-c", SCRIPT, "serve", "--port", "0", "--data-dir", str(data),
        "--log-format", "json", "--allow-private-urls",
    ]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stderr is not None
    banner: dict[str, str] = {}
    while "serving" not in banner:
        line = child.stdout.readline()
        assert line, f"mcv serve stopped: {child.communicate(timeout=10)[1]}"
        name, _, value = line.partition(":")
        banner[name if value else line.split(";")[0]] = value.strip()
    served = Served(banner["base URL"], banner["API key"])
    assert banner["console"].startswith(f"{served.base_url}/console/")
    stderr = child.stderr

    def read_log() -> None:
        for line in iter(stderr.readline, ""):
            served.log.append(line)

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        yield served
    finally:
        child.terminate()
        child.wait(timeout=20)
        reader.join(timeout=5)
        child.stdout.close()
        stderr.close()


@pytest.fixture
def photo() -> Path:
    return Path(__file__).resolve().parents[3] / "pipelines" / "assets" / "photo.jpg"
