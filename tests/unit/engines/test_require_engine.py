"""Tests that need an engine ask the engine registry, not PATH (issue 14): a stand-in ``convert`` or a
LibreOffice without Calc skips the tests that need them, with the reason, instead of failing them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import engine_needs
from mcv_pipelines.service.engines.office.libreoffice import UNO_PYTHON


def _need_uno() -> None:
    """The LibreOffice engine lists nothing without ``uno`` under the system Python (its warm pool's
    bridge): a stand-in soffice is not enough, so a machine without python3-uno cannot run the test."""
    try:
        found = subprocess.run([UNO_PYTHON, "-I", "-c", "import uno"], capture_output=True, timeout=60)
    except OSError:
        found = None
    if found is None or found.returncode != 0:
        engine_needs.unavailable(f"needs python3-uno under {UNO_PYTHON} (install it, or run .ci/run)")


def _script(directory: Path, name: str, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_a_convert_that_is_not_imagemagick_skips_imagemagick_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows' convert.exe (a file system converter) and image stand-ins answer -version like this.
    fake = _script(tmp_path / "bin", "convert", 'echo "Invalid Parameter - -version" >&2; exit 4')
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setattr(engine_needs, "ENGINES_REQUIRED", False)
    assert shutil.which(fake.name) == str(fake)  # PATH alone would say "go ahead"
    with pytest.raises(pytest.skip.Exception, match=r"needs the imagemagick engine, which cannot run here"):
        engine_needs.require_engine("imagemagick")
    monkeypatch.setattr(engine_needs, "ENGINES_REQUIRED", True)
    with pytest.raises(pytest.fail.Exception, match=r"MCV_REQUIRE_ENGINES=1 but the test needs the imagem"):
        engine_needs.require_engine("imagemagick")


def test_a_writer_only_libreoffice_runs_documents_and_skips_spreadsheets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_uno()  # before the switch is set aside below
    program = tmp_path / "libreoffice" / "program"
    _script(program, "soffice", 'echo "LibreOffice 7.4.7.2 40(Build:2)"')
    (program / "libswlo.so").write_bytes(b"")  # Writer is installed; Calc (libsclo.so) is not
    monkeypatch.setenv("PATH", str(program))
    monkeypatch.setattr(engine_needs, "ENGINES_REQUIRED", False)
    engine = engine_needs.require_engine("libreoffice", "convert", "docx", "pdf")
    assert engine.name == "libreoffice"
    with pytest.raises(pytest.skip.Exception, match=r"needs convert xlsx -> pdf from the libreoffice engine"):
        engine_needs.require_engine("libreoffice", "convert", "xlsx", "pdf")
    monkeypatch.setattr(engine_needs, "ENGINES_REQUIRED", True)
    with pytest.raises(pytest.fail.Exception, match=r"MCV_REQUIRE_ENGINES=1"):
        engine_needs.require_engine("libreoffice", "convert", "csv", "pdf")
