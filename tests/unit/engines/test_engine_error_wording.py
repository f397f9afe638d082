"""Engine errors name the user's file, never the service's directories or a library's internals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest
from mcv_pipelines.service.engines.failures import hide_paths
from mcv_pipelines.service.engines.image.image_io import load_image
from mcv_pipelines.service.engines.options import (
    bool_option,
    enum_option,
    float_option,
    int_option,
    str_option,
)

RequireEngine = Callable[..., Engine]

def test_hide_paths_keeps_file_names_and_sandbox_paths() -> None:
    text = "/tmp/mcv-service-x/tasks/d44/broken.mp4: Invalid data; see /input/clip/a.mp4 and http://h/x/y"
    assert hide_paths(text) == "broken.mp4: Invalid data; see /input/clip/a.mp4 and http://h/x/y"


def test_an_unreadable_image_says_so_without_its_directory(tmp_path: Path) -> None:
    bad = tmp_path / "deep" / "bad.png"
    bad.parent.mkdir()
    bad.write_bytes(b"\x89PNG not really" * 10)
    with pytest.raises(EngineError) as caught:
        load_image(bad, all_frames=False, auto_orient=True)
    assert caught.value.code == "INVALID_INPUT_FILE"
    assert "'bad.png'" in caught.value.message
    assert str(tmp_path) not in caught.value.message
    assert "MPO" not in caught.value.message  # was a KeyError for a decoder Pillow does not register


def test_a_truncated_video_is_an_invalid_input(
    require_engine: RequireEngine, make_request: Callable[..., EngineRequest], tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x20ftypisom" + b"\x00" * 200)
    with pytest.raises(EngineError) as caught:
        FfmpegEngine().run(make_request("convert", "mp4", "webm", [broken]))
    assert caught.value.code == "INVALID_INPUT"
    assert caught.value.message.startswith("broken.mp4 is not a media file ffmpeg can read")
    assert str(tmp_path) not in caught.value.message


def test_enum_options_match_without_case() -> None:
    assert enum_option({"page_format": "A4"}, "page_format", "letter", ("letter", "a4")) == "a4"
    with pytest.raises(EngineError, match=r"option .page_format. must be one of letter, a4, got .A9."):
        enum_option({"page_format": "A9"}, "page_format", "letter", ("letter", "a4"))


@pytest.mark.parametrize(
    ("read", "wanted"),
    [
        (
            lambda: int_option({"w": "x"}, "w", None, 1, 10),
            "option 'w' must be an integer between 1 and 10, got 'x'",
        ),
        (lambda: int_option({"w": 0}, "w", None, 1), "option 'w' must be an integer of at least 1, got 0"),
        (
            lambda: float_option({"w": "nan"}, "w", None, 0, 5),
            "option 'w' must be a number between 0 and 5, got 'nan'",
        ),
        (
            lambda: float_option({"w": 11}, "w", None, 0, 10),
            "option 'w' must be a number between 0 and 10, got 11",
        ),
        (lambda: bool_option({"w": "yes"}, "w", False), "option 'w' must be true or false, got 'yes'"),
        (lambda: str_option({"w": [1]}, "w"), "option 'w' must be a string, got [1]"),
    ],
)
def test_option_errors_name_the_option_the_value_and_what_is_allowed(
    read: Callable[[], object], wanted: str
) -> None:
    with pytest.raises(EngineError) as caught:
        read()
    assert (caught.value.code, caught.value.message) == ("INVALID_OPTION", wanted)


def test_options_accept_what_a_form_or_manifest_sends() -> None:
    given = {"n": " 300 ", "f": "1.5", "b": "TRUE", "blank": "", "year": 2024}
    assert int_option(given, "n") == 300
    assert float_option(given, "f") == 1.5
    assert bool_option(given, "b", False) is True
    assert int_option(given, "blank", 7) == 7  # an empty field is an unset one
    assert enum_option(given, "blank", "web", ("web", "print")) == "web"
    assert str_option(given, "year") == "2024"
