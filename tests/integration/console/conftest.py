"""Browser tests of the console: pytest-playwright driving Debian's chromium (never `playwright
install`), against a real `mcv serve` process on loopback whose log is kept for the tests to read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_helpers import Served

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


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    reason = "needs Debian's chromium (apt-get install -y chromium, or run .ci/run as root)"
    if os.environ.get("MCV_REQUIRE_ENGINES") == "1":
        pytest.fail(f"MCV_REQUIRE_ENGINES=1 but the console's browser test {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def base_url() -> str | None:
    """pytest-base-url's own fixture (which pytest-playwright asks for) trips a pytest deprecation
    warning, an error here; the pages are opened by full address, so there is no base URL."""
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's launch options, with the system's chromium instead of a downloaded one."""
    return {**browser_type_launch_args, "executable_path": _chromium(), "args": CHROMIUM_ARGS}


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
