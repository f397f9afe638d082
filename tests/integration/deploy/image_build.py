"""The image the deploy tests run: built by scripts/build-image.sh from the repository as it is, or
the one a build in the background is making (.ci/run starts it right after install-engines.sh, so
that the build overlaps the suite), waited for instead of built twice.

``MCV_IMAGE_BUILD_STATUS`` names the file that background build writes when it ends (key=value
lines: status, tag, image, size, seconds) and ``MCV_IMAGE_BUILD_LOG`` its log. Unset, the test builds
(or reuses) the image itself. Either way an image is keyed by the hash of what it is built from, so
a run on an unchanged tree builds nothing.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine_needs import require_program, unavailable

__all__ = ["BUILD_SCRIPT", "BUILD_TIMEOUT", "REPO", "Built", "built_image", "require_podman"]

REPO = Path(__file__).resolve().parents[3]
BUILD_SCRIPT = REPO / "scripts" / "build-image.sh"
STATUS_VARIABLE, LOG_VARIABLE = "MCV_IMAGE_BUILD_STATUS", "MCV_IMAGE_BUILD_LOG"
# A cold build (the engines' layer) took 7 to 9 minutes on 2 shared cores; debootstrap 4 more.
BUILD_TIMEOUT = 45 * 60


@dataclass(frozen=True, slots=True)
class Built:
    """An image built from this tree: its tag, id, size in bytes, and how it came (built, reused)."""

    tag: str
    image: str
    size: int
    seconds: int
    how: str


def require_podman() -> str:
    """podman (and debootstrap for the base), as root: skipped locally without them, required in CI."""
    podman = require_program("podman")
    require_program("debootstrap")
    if os.geteuid() != 0:
        unavailable("needs root: podman builds the image rootful (scripts/build-image.sh); run as root")
    return podman


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def _read_status(path: Path) -> dict[str, str]:
    pairs = (line.partition("=") for line in path.read_text().splitlines())
    return {key: value for key, _, value in pairs}


def _tree_tag() -> str:
    done = subprocess.run(["bash", str(BUILD_SCRIPT), "--print-tag"], capture_output=True, text=True,
                          check=True, timeout=60)  # fmt: skip
    return done.stdout.strip()


def _waited(status_path: Path, log_path: Path | None) -> dict[str, str] | None:
    """The background build's status once it ends, or None when it built another tree."""
    deadline = time.monotonic() + BUILD_TIMEOUT
    while not status_path.exists():
        if time.monotonic() > deadline:
            log = _tail(log_path.read_text(errors="replace")) if log_path and log_path.exists() else ""
            pytest.fail(f"the image build in the background wrote no {status_path} in {BUILD_TIMEOUT} s:\n"
                        f"{log}")  # fmt: skip
        time.sleep(2)
    status = _read_status(status_path)
    if status.get("status") != "ok":
        log = log_path.read_text(errors="replace") if log_path and log_path.exists() else "(no log)"
        pytest.fail(f"the image build in the background failed ({status_path}):\n{_tail(log)}")
    return status if status.get("tag") == _tree_tag() else None


def built_image() -> Built:
    """The image of this tree: the background build's (waited for), or built here (reused when built)."""
    status_file = os.environ.get(STATUS_VARIABLE)
    if status_file:
        log_file = os.environ.get(LOG_VARIABLE)
        status = _waited(Path(status_file), Path(log_file) if log_file else None)
        if status is not None:
            return Built(status["tag"], status["image"], int(status["size"]), int(status["seconds"]),
                         "built in the background")  # fmt: skip
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        status_path = Path(scratch) / "status"
        done = subprocess.run(["bash", str(BUILD_SCRIPT), "--status", str(status_path)], capture_output=True,
                              text=True, check=False, timeout=BUILD_TIMEOUT)  # fmt: skip
        if done.returncode != 0:
            output = _tail(done.stdout + done.stderr)
            pytest.fail(f"scripts/build-image.sh failed ({done.returncode}):\n{output}")
        status = _read_status(status_path)
    how = "reused" if "reused" in done.stdout else f"built in {time.monotonic() - started:.0f} s"
    return Built(status["tag"], status["image"], int(status["size"]), int(status["seconds"]), how)
