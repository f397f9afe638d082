"""The official Node SDK (``cloudconvert`` from npm, pinned), unchanged, against the local service:
upload, wait, export URLs, download, list/get/delete, a standalone task, users.me, a webhook the
service delivers and the SDK's own verify accepts, a bad key refused. node_sdk_scenario.cjs points
the SDK at the service by overriding its base-URL method (callWithBase); the SDK is not edited.

The SDK is installed with npm once into a cache directory (MCV_NODE_SDK_DIR, else the user cache);
without node, npm or the npm registry the test is skipped, and fails under MCV_REQUIRE_ENGINES=1.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import platformdirs
import pytest
from PIL import Image

from engine_needs import unavailable
from mcv_pipelines.service.server import LocalService

SDK_VERSION = "3.0.0"  # needs node >= 20.11.19
SCENARIO = Path(__file__).resolve().parent / "node_sdk_scenario.cjs"


def _node_major_minor(node: str) -> tuple[int, int]:
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True, timeout=30)
    major, minor, *_ = version.stdout.strip().lstrip("v").split(".")
    return int(major), int(minor)


def _install_sdk(npm: str) -> Path:
    """node_modules holding cloudconvert@SDK_VERSION, installed on first use."""
    root = Path(
        os.environ.get("MCV_NODE_SDK_DIR")
        or Path(platformdirs.user_cache_dir("mcv-pipelines")) / "test-node-sdk" / SDK_VERSION
    )
    manifest = root / "node_modules" / "cloudconvert" / "package.json"
    if manifest.is_file() and json.loads(manifest.read_text())["version"] == SDK_VERSION:
        return root / "node_modules"
    root.mkdir(parents=True, exist_ok=True)
    command = [
        npm,
        "install",
        "--prefix",
        str(root),
        "--no-audit",
        "--no-fund",
        "--no-save",
        f"cloudconvert@{SDK_VERSION}",
    ]
    try:
        installed = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        unavailable(
            f"npm install cloudconvert@{SDK_VERSION} took over 300 s (is the npm registry reachable?)"
        )
    if installed.returncode != 0 or not manifest.is_file():
        unavailable(f"npm install cloudconvert@{SDK_VERSION} failed: {installed.stderr.strip()[-500:]}")
    return root / "node_modules"


@pytest.fixture
def node_sdk(require_program: Callable[..., str]) -> tuple[str, Path]:
    node, npm = require_program("node"), require_program("npm")
    if _node_major_minor(node) < (20, 11):
        unavailable(f"the Node SDK {SDK_VERSION} needs node >= 20.11 ({node} is older)")
    return node, _install_sdk(npm)


def test_node_sdk_runs_a_full_scenario(
    node_sdk: tuple[str, Path], contract_service: LocalService, tmp_path: Path
) -> None:
    node, modules = node_sdk
    photo, download = tmp_path / "photo.png", tmp_path / "downloaded.jpg"
    Image.new("RGB", (48, 32), (200, 30, 30)).save(photo)
    env = {**os.environ, "NODE_PATH": str(modules), "MCV_TEST_API_KEY": contract_service.api_key}
    run = subprocess.run(
        [node, str(SCENARIO), contract_service.base_url, str(photo), str(download)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert contract_service.api_key not in run.stdout + run.stderr
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == {
        "user": seen["user"],
        "exported": "photo.jpg",
        "webhook": "job.finished",
        "deleted_task": 404,
        "deleted_job": 404,
        "bad_key": 401,
    }
    with Image.open(download) as image:  # the converted file itself, fetched by the SDK's export URL
        assert (image.format, image.size) == ("JPEG", (48, 32))
