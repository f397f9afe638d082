"""`mcv doctor` on this machine and on one with only Python on PATH (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.service.engines import ENGINE_FACTORIES
from mcv_pipelines.service.engines.install_hints import INSTALL_HINTS

# Engines backed by a program: the programs each looks for are in its install hint.
PROGRAM_ENGINES = sorted(name for name, hint in INSTALL_HINTS.items() if hint.programs)


def _doctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcv_pipelines", "doctor", *args],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )


def _clean_env(tmp_path: Path, path: str) -> dict[str, str]:
    """No service configured, no user files: only PATH, a fresh home and data directory."""
    return {"PATH": path, "HOME": str(tmp_path / "home"), "MCV_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture(scope="module")
def here(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`mcv doctor --format json` on this machine, run once for the tests of each engine."""
    tmp_path = tmp_path_factory.mktemp("doctor")
    done = _doctor(_clean_env(tmp_path, os.environ["PATH"]), "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("engine", PROGRAM_ENGINES)
def test_an_installed_engine_is_listed_with_version_path_and_conversions(
    here: dict[str, Any], engine: str, require_engine: Callable[..., Any]
) -> None:
    # Asked of the engine itself, not of PATH: a `convert` that is not ImageMagick is no ImageMagick.
    require_engine(engine)
    found = {row["name"]: row for row in here["engines"]}
    assert engine in found, here["missing_engines"]
    row = found[engine]
    assert any(ch.isdigit() for ch in row["version"])
    assert row["path"] is not None
    assert Path(row["path"]).name in INSTALL_HINTS[engine].programs
    assert os.access(row["path"], os.X_OK)
    assert row["conversions_total"] >= 1
    assert engine not in {row["name"] for row in here["missing_engines"]}


def test_python_engines_are_always_there_and_the_exit_code_follows_attention(
    here: dict[str, Any],
) -> None:
    found = {row["name"]: row for row in here["engines"]}
    assert {"pillow", "pypdf", "archive"} <= set(found)
    assert found["pillow"]["conversions"]["convert"] > 10
    assert here["ok"] is (not here["attention"])
    assert here["service"] == {
        "configured": False, "base_url": None, "reachable": None, "key_given": False,
        "key_valid": None, "version": None, "problem": None,
    }


def test_with_only_python_on_path_it_lists_what_is_missing_and_the_packages(tmp_path: Path) -> None:
    only_python = tmp_path / "bin"
    only_python.mkdir()
    (only_python / "python3").symlink_to(sys.executable)
    env = _clean_env(tmp_path, str(only_python))
    done = _doctor(env)
    assert done.returncode == 1, done.stderr
    text = done.stdout
    # the engines that need no program: Pillow, pypdf, the archives, fontTools
    without_programs = sum(1 for hint in INSTALL_HINTS.values() if not hint.programs)
    assert f"engines: {without_programs} of {len(INSTALL_HINTS)} found" in text
    assert "ffmpeg: audio and video conversions" in text
    assert "(needs ffmpeg and ffprobe on PATH)" in text
    assert "sudo apt-get install --no-install-recommends ffmpeg" in text
    assert "sudo dnf install ffmpeg-free" in text
    assert "brew install ffmpeg" in text
    assert "sudo apt-get install --no-install-recommends poppler-utils" in text
    assert "brew install --cask libreoffice" in text
    as_json = json.loads(_doctor(env, "--format", "json").stdout)
    missing = {row["name"]: row for row in as_json["missing_engines"]}
    assert set(missing) == {name for name, hint in INSTALL_HINTS.items() if hint.programs}
    assert missing["chromium"]["packages"] == {
        "debian/ubuntu": "chromium", "fedora": "chromium", "macos homebrew": "--cask chromium",
    }
    assert as_json["ok"] is False
    assert len(as_json["attention"]) == len(missing)


def test_every_registered_engine_has_an_install_hint() -> None:
    """A new engine in ENGINE_FACTORIES adds its row to engines/install_hints.py."""
    names = {str(getattr(factory, "name", "")) for factory in ENGINE_FACTORIES}
    assert names == set(INSTALL_HINTS)
    for hint in INSTALL_HINTS.values():
        assert hint.brings
        if hint.programs:
            assert set(hint.packages) == {"debian/ubuntu", "fedora", "macos homebrew"}


def test_a_data_directory_that_cannot_be_written_needs_attention(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # root writes anywhere: make the directory a file's child instead
        blocker = tmp_path / "file"
        blocker.write_text("x")
        data = blocker / "data"
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        data = locked / "data"
    env = _clean_env(tmp_path, os.environ["PATH"])
    report = json.loads(_doctor(env, "--format", "json", "--data-dir", str(data)).stdout)
    assert report["data_dir"]["writable"] is False
    assert any(item.startswith("data directory:") for item in report["attention"])
