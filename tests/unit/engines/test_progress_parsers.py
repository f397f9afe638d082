"""What engines make of their programs' progress output, and how a task's percent is kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.progress import (
    FfmpegProgress,
    GhostscriptPages,
    PdftoppmPages,
    Steps,
    line_pipe,
    parse_clock,
)
from mcv_pipelines.service.state.changes import Change, ChangeFeed
from mcv_pipelines.service.state.store import Store
from mcv_pipelines.service.state.tasks import new_task
from mcv_pipelines.service.work.progress import TaskProgress


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("00:00:05.500000", 5.5), ("01:02:03.25", 3723.25), ("-00:00:00.040000", -0.04), ("N/A", None)],
)
def test_parse_clock(text: str, seconds: float | None) -> None:
    assert parse_clock(text) == seconds


def test_ffmpeg_progress_is_out_time_over_the_length_written() -> None:
    heard: list[float] = []
    parser = FfmpegProgress(10.0, heard.append)
    block = "frame=30\nfps=0.00\nout_time_us=2500000\nout_time_ms=2500000\nout_time=00:00:02.500000\n"
    for line in [*block.splitlines(), "out_time=N/A", "bitrate=N/A", "progress=continue"]:
        parser.feed(line)
    assert heard == [25.0, 25.0, 25.0]
    parser.feed("out_time_us=10000000")  # the last packet: 100 % is the task's to say, once it finished
    assert heard[-1] == 99.0


def test_ffmpeg_progress_without_a_length_says_nothing() -> None:
    heard: list[float] = []
    for total in (None, 0.0):
        FfmpegProgress(total, heard.append).feed("out_time_us=2500000")
    assert heard == []


def test_pdftoppm_pages_count_up_to_the_pages_asked_for() -> None:
    heard: list[float] = []
    parser = PdftoppmPages(4, heard.append)
    for line in ["1 4 /tmp/page-1.png", "Syntax Warning: bad xref", "2 4 /tmp/page-2.png"]:
        parser.feed(line)
    assert heard == [23.75, 47.5]


def test_ghostscript_pages_count_from_its_page_range() -> None:
    heard: list[float] = []
    parser = GhostscriptPages(heard.append)
    parser.feed("Page 1")  # before the range is known: nothing to say
    for line in ["GPL Ghostscript 10.0.0", "Processing pages 1 through 4.", "Page 1", "Page 2", "Page 4"]:
        parser.feed(line)
    assert heard == [0.0, 25.0, 75.0]


def test_steps_share_a_span() -> None:
    heard: list[float] = []
    steps = Steps(3, heard.append, start=30, end=60)
    for _ in range(4):
        steps.advance()
    assert heard == [40.0, 50.0, 60.0, 60.0]


def test_line_pipe_hands_over_every_line_written_by_a_child() -> None:
    lines: list[str] = []
    with line_pipe(lines.append) as fd:
        os.write(fd, b"out_time_us=1\nprogress=continue\nout_time_us=2\n")
    assert lines == ["out_time_us=1\n", "progress=continue\n", "out_time_us=2\n"]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_task_progress_saves_and_publishes_at_most_four_times_a_second(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    task = new_task(1, {"operation": "convert"}, {}, job_id=None, name="slow", region="local")
    task["status"] = "processing"
    store.save_task(task)
    feed = ChangeFeed()
    published: list[Change] = []
    feed.listen(published.append)
    clock = _Clock()
    progress = TaskProgress(store, feed, task, per_second=4, clock=clock)

    progress(12.7)
    progress(30)  # within 0.25 s of the last write: dropped
    clock.now += 0.3
    progress(11)  # lower than what was saved: dropped
    clock.now += 0.3
    progress(150)  # never 100 (or more) while running

    assert [c.percent for c in published] == [12, 99]
    assert all(c.status == "processing" and c.id == task["id"] for c in published)
    stored = store.get_task(task["id"])
    assert stored is not None
    assert stored["percent"] == 99


def test_task_progress_leaves_an_ended_task_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    task = new_task(1, {"operation": "convert"}, {}, job_id=None, name="slow", region="local")
    task.update(status="processing")
    store.save_task(task)
    feed = ChangeFeed()
    published: list[Change] = []
    feed.listen(published.append)
    progress = TaskProgress(store, feed, task)
    store.update_task(task["id"], lambda t: t.update(status="error") is None)  # cancelled meanwhile

    progress(50)

    assert published == []
    stored = store.get_task(task["id"])
    assert stored is not None
    assert (stored["status"], stored["percent"]) == ("error", 0)
