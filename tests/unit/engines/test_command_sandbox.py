"""How command arguments are checked and rewritten (no program needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.sandbox import TaskDirectory, map_arguments, split_arguments


@pytest.fixture
def task(tmp_path: Path) -> TaskDirectory:
    return TaskDirectory(root=tmp_path / "task", inputs=tmp_path / "task" / "input", outputs=tmp_path / "out")


def test_arguments_are_split_like_a_shell_but_not_interpreted() -> None:
    assert split_arguments("-i '/input/a b/c.mp4' \"x y\" $HOME `id` ; rm") == [
        "-i", "/input/a b/c.mp4", "x y", "$HOME", "`id`", ";", "rm",
    ]  # fmt: skip


def test_unbalanced_quotes_are_a_clear_error() -> None:
    with pytest.raises(EngineError, match="cannot be split"):
        split_arguments("-i 'unterminated")


def test_input_and_output_paths_map_to_the_task_directories(task: TaskDirectory) -> None:
    mapped = map_arguments(
        ["-i", "/input/upload/clip.mp4", "-vf", "subtitles=/input/subs/a.srt", "/output/", "/output/x/y.png"],
        task,
    )
    assert mapped == [
        "-i",
        f"{task.inputs}/upload/clip.mp4",
        "-vf",
        f"subtitles={task.inputs}/subs/a.srt",
        str(task.outputs),
        f"{task.outputs}/x/y.png",
    ]


def test_relative_paths_and_arithmetic_pass_untouched(task: TaskDirectory) -> None:
    arguments = ["scale=iw/2:ih/2", "fps=1/5", "out.png", "-resize", "50%", "100x100>"]
    assert map_arguments(arguments, task) == arguments


@pytest.mark.parametrize(
    "argument",
    [
        "/etc/passwd",
        "/inputs/x",
        "/input/../../etc/passwd",
        "../secret",
        "movie=/etc/passwd",
        "movie='/etc/passwd'",
        "drawtext=textfile=\\/etc/passwd",
        "file:/etc/passwd",
        "file:///etc/passwd",
        "http://127.0.0.1:9/x.mp4",
        "text:/etc/hostname",
        "@/etc/passwd",
        "[f=mp4]/tmp/x.mp4",
    ],
)
def test_paths_outside_input_and_output_are_refused(task: TaskDirectory, argument: str) -> None:
    with pytest.raises(EngineError) as caught:
        map_arguments(["-i", argument], task)
    assert caught.value.code == "SANDBOX_PATH_NOT_ALLOWED"
    assert repr(argument) in caught.value.message
