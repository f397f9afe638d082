"""A program's warnings are never read as its answer (issue 38): under a read-only root fontconfig has
no writable cache and says so on stderr, 22 lines of it; read together with stdout they made a font
"path" too long to stat, which failed the ffmpeg engine's listing and with it every engine lookup."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines import find_conversion
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.av.watermark import find_font
from mcv_pipelines.service.engines.base import Engine, EngineError
from mcv_pipelines.service.engines.process import run_checked, run_program

RequireEngine = Callable[..., Engine]
_WARNING = "Fontconfig error: No writable cache directories"


def _warning_fc_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An fc-match that answers as the real one does without a writable cache: its answer, a font
    outside the usual places (so the fallback cannot pass for it), on stdout and warnings on stderr."""
    real = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    font = tmp_path / "fonts" / "Sans.ttf"
    font.parent.mkdir()
    shutil.copyfile(real, font) if real.is_file() else font.write_bytes(b"\0\1\0\0")
    program = tmp_path / "bin" / "fc-match"
    program.parent.mkdir()
    warnings = "\n".join(f"echo '{_WARNING}' >&2" for _ in range(22))
    program.write_text(f"#!/bin/sh\n{warnings}\nprintf '%s' '{font}'\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}:{Path(sys.executable).parent}:/usr/bin:/bin")
    return font


def test_fontconfig_warnings_are_not_taken_for_the_font(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    font = _warning_fc_match(tmp_path, monkeypatch)
    assert find_font() == font


def test_the_ffmpeg_engine_still_lists_its_conversions_when_fontconfig_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_engine: RequireEngine
) -> None:
    require_engine("ffmpeg", "convert", "mp4", "webm")
    _warning_fc_match(tmp_path, monkeypatch)
    engine = FfmpegEngine()
    assert find_conversion([engine], "convert", "mp4", "webm") is not None
    assert find_conversion([engine], "watermark", "mp4", "mp4") is not None


def test_an_answer_is_stdout_alone_and_a_failure_still_names_the_warnings() -> None:
    script = "import sys; print('warned', file=sys.stderr, flush=True); print('answer')"
    outcome = run_program([sys.executable, "-c", script], answer_only=True)
    assert (outcome.output, outcome.errors) == ("answer\n", "warned\n")
    failing = "import sys; print('bad frame', file=sys.stderr); sys.exit(3)"
    with pytest.raises(EngineError) as caught:
        run_checked([sys.executable, "-c", failing], what="probing clip.mp4", answer_only=True)
    assert caught.value.message == "probing clip.mp4 failed: bad frame"
