"""The command operation with real programs: ffmpeg/ffprobe, ImageMagick, GraphicsMagick."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine_needs import engine_program
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.image.magick import GraphicsMagickEngine, ImageMagickEngine

RequireEngine = Callable[..., Engine]


def command_request(
    tmp_path: Path, inputs: dict[str, Path], timeout: float = 60, **options: Any
) -> EngineRequest:
    return EngineRequest(
        operation="command",
        input_format="any",
        output_format="any",
        options=options,
        inputs=[InputFile(task, path) for task, path in inputs.items()],
        output_dir=tmp_path / "out",
        work_dir=tmp_path / "work",
        timeout=timeout,
    )


def outside_files(tmp_path: Path) -> set[Path]:
    """Files in the test directory that are neither inputs nor in the task's work or output directory."""
    return {p for p in tmp_path.rglob("*") if p.is_file() and p.parent != tmp_path / "in"} - {
        p for p in tmp_path.rglob("*") if (tmp_path / "work") in p.parents or (tmp_path / "out") in p.parents
    }


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    target = tmp_path / "in" / "photo.png"
    Image.new("RGB", (120, 80), (30, 140, 200)).save(target)
    return target


@pytest.fixture
def clip(require_engine: RequireEngine, tmp_path: Path) -> Path:
    require_engine("ffmpeg")
    (tmp_path / "in").mkdir(exist_ok=True)
    target = tmp_path / "in" / "clip.mp4"
    subprocess.run(
        [engine_program("ffmpeg", "ffmpeg"), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
         "testsrc=size=160x120:rate=10:duration=1", "-c:v", "libx264", "-preset", "ultrafast", str(target)],
        check=True,
    )  # fmt: skip
    return target


def test_ffmpeg_command_writes_into_output(clip: Path, tmp_path: Path) -> None:
    arguments = "-i /input/upload/clip.mp4 -vf scale=80:-2 -c:v libx264 -preset ultrafast /output/small.mp4"
    result = FfmpegEngine().run(
        command_request(tmp_path, {"upload": clip}, command="ffmpeg", arguments=arguments)
    )
    assert [f.name for f in result.files] == ["small.mp4"]
    assert result.files[0].stat().st_size > 0
    assert result.extra["command"] == f"ffmpeg {arguments}"
    assert "output" not in result.extra
    assert outside_files(tmp_path) == set()


def test_captured_output_shows_paths_as_the_user_wrote_them(clip: Path, tmp_path: Path) -> None:
    request = command_request(
        tmp_path, {"upload": clip}, command="ffprobe", arguments="-hide_banner /input/upload/clip.mp4",
        capture_output=True,
    )  # fmt: skip
    result = FfmpegEngine().run(request)
    assert "Duration: 00:00:01" in result.extra["output"]
    assert "/input/upload/clip.mp4" in result.extra["output"]
    assert str(tmp_path) not in result.extra["output"]
    assert result.files == []


@pytest.mark.parametrize(
    ("command", "arguments", "code"),
    [
        ("sh", "-c id", "COMMAND_NOT_ALLOWED"),
        ("convert", "/input/upload/clip.mp4 /output/x.png", "COMMAND_NOT_ALLOWED"),
        ("ffmpeg", "-i /etc/passwd /output/x.mp4", "SANDBOX_PATH_NOT_ALLOWED"),
        ("ffmpeg", "-i /input/upload/clip.mp4 /tmp/escaped.mp4", "SANDBOX_PATH_NOT_ALLOWED"),
        ("ffmpeg", "-i /input/upload/clip.mp4 ../escaped.mp4", "SANDBOX_PATH_NOT_ALLOWED"),
        ("ffmpeg", "-i http://127.0.0.1:9/a.mp4 /output/x.mp4", "SANDBOX_PATH_NOT_ALLOWED"),
        ("ffmpeg", "-filter_script f.txt -i /input/upload/clip.mp4 /output/x.mp4", "COMMAND_NOT_ALLOWED"),
        ("ffmpeg", "-f concat -safe 0 -i list.txt /output/x.mp4", "COMMAND_NOT_ALLOWED"),
    ],
)
def test_other_programs_and_paths_outside_are_refused(
    clip: Path, tmp_path: Path, command: str, arguments: str, code: str
) -> None:
    request = command_request(tmp_path, {"upload": clip}, command=command, arguments=arguments)
    with pytest.raises(EngineError) as caught:
        FfmpegEngine().run(request)
    assert caught.value.code == code
    assert not (tmp_path / "escaped.mp4").exists()
    assert not Path("/tmp/escaped.mp4").exists()
    assert not any((tmp_path / "out").glob("*"))


def test_a_failing_program_reports_its_exit_and_message(clip: Path, tmp_path: Path) -> None:
    request = command_request(
        tmp_path, {"upload": clip}, command="ffmpeg", arguments="-i /input/upload/none.mp4"
    )
    with pytest.raises(EngineError) as caught:
        FfmpegEngine().run(request)
    assert caught.value.code == "COMMAND_FAILED"
    assert "/input/upload/none.mp4" in caught.value.message
    assert str(tmp_path) not in caught.value.message


def _running_with(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_timeout_kills_the_program(clip: Path, tmp_path: Path) -> None:
    marker = f"endless-{os.getpid()}-{time.monotonic_ns()}.mkv"
    arguments = f"-re -f lavfi -i testsrc=size=32x32:rate=5 -c:v libx264 -preset ultrafast /output/{marker}"
    request = command_request(tmp_path, {"upload": clip}, timeout=1, command="ffmpeg", arguments=arguments)
    started = time.monotonic()
    with pytest.raises(EngineError) as caught:
        FfmpegEngine().run(request)
    assert caught.value.code == "TIMEOUT"
    assert time.monotonic() - started < 10
    assert _running_with(marker) == []


def test_cancel_stops_the_program(clip: Path, tmp_path: Path) -> None:
    arguments = "-re -f lavfi -i testsrc=size=32x32:rate=5 -f null -"
    request = command_request(tmp_path, {"upload": clip}, command="ffmpeg", arguments=arguments)
    timer = threading.Timer(0.5, request.cancelled.set)
    timer.start()
    with pytest.raises(EngineError) as caught:
        FfmpegEngine().run(request)
    timer.cancel()
    assert caught.value.code == "CANCELLED"


def test_imagemagick_convert_resizes(require_engine: RequireEngine, picture: Path, tmp_path: Path) -> None:
    require_engine("imagemagick")
    arguments = "/input/photo/photo.png -resize 50% /output/half.png"
    request = command_request(tmp_path, {"photo": picture}, command="convert", arguments=arguments)
    result = ImageMagickEngine().run(request)
    with Image.open(result.files[0]) as image:
        assert image.size == (60, 40)
    identify = command_request(
        tmp_path / "again", {"photo": picture}, command="identify", arguments="/input/photo/photo.png",
        capture_output=True,
    )  # fmt: skip
    assert "120x80" in ImageMagickEngine().run(identify).extra["output"]


def test_imagemagick_runs_under_the_restrictive_policy(
    require_engine: RequireEngine, picture: Path, tmp_path: Path
) -> None:
    require_engine("imagemagick")
    request = command_request(
        tmp_path, {"photo": picture}, command="convert", arguments="-list policy", capture_output=True
    )
    listed = ImageMagickEngine().run(request).extra["output"]
    for blocked in ("pattern: MVG", "pattern: MSL", "pattern: URL", "pattern: TEXT", "pattern: @*"):
        assert blocked in listed


def test_imagemagick_refuses_file_reading_coders_in_arguments(
    require_engine: RequireEngine, picture: Path, tmp_path: Path
) -> None:
    require_engine("imagemagick")
    request = command_request(
        tmp_path, {"photo": picture}, command="convert", arguments="text:notes.txt /output/x.png"
    )
    with pytest.raises(EngineError) as caught:
        ImageMagickEngine().run(request)
    assert caught.value.code == "COMMAND_NOT_ALLOWED"


def test_graphicsmagick_gm_convert(require_engine: RequireEngine, picture: Path, tmp_path: Path) -> None:
    require_engine("graphicsmagick")
    arguments = "convert /input/photo/photo.png -resize 30x20 /output/s.jpg"
    request = command_request(tmp_path, {"photo": picture}, command="gm", arguments=arguments)
    result = GraphicsMagickEngine().run(request)
    with Image.open(result.files[0]) as image:
        assert (image.format, image.size) == ("JPEG", (30, 20))


def test_graphicsmagick_refuses_drawing_script_inputs(
    require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("graphicsmagick")
    (tmp_path / "in").mkdir()
    disguised = tmp_path / "in" / "innocent.png"
    disguised.write_text("push graphic-context\nimage over 0,0 0,0 'text:/etc/passwd'\npop graphic-context\n")
    request = command_request(
        tmp_path, {"art": disguised}, command="gm", arguments="convert /input/art/innocent.png /output/x.png"
    )
    with pytest.raises(EngineError) as caught:
        GraphicsMagickEngine().run(request)
    assert caught.value.code == "COMMAND_NOT_ALLOWED"
    assert not any((tmp_path / "out").glob("*"))
