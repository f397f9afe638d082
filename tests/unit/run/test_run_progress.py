"""The progress views: what a person sees on a terminal and in a log."""

from __future__ import annotations

import io

from rich.console import Console

from mcv_pipelines.run.progress import PlainProgress, RichProgress, human_size

EVENTS: list[tuple[str, dict[str, object]]] = [
    ("submitted", {"job_id": "j1", "tag": "t~1", "tasks": 2}),
    ("upload", {"task": "in", "done": 0, "total": 2048}),
    ("upload", {"task": "in", "done": 2048, "total": 2048}),
    ("uploaded", {"task": "in", "file": "/tmp/a.jpg", "size": 2048}),
    ("task", {"task": "conv", "operation": "convert", "status": "processing", "percent": 40}),
    ("task", {"task": "conv", "operation": "convert", "status": "error", "message": "bad input"}),
    ("download", {"task": "pub", "file": "/tmp/out/a.png", "done": 5, "total": 10}),
    ("downloaded", {"task": "pub", "file": "/tmp/out/a.png", "size": 10}),
    ("failed", {"job_id": "j1"}),
]


def test_plain_lines() -> None:
    stream = io.StringIO()
    view = PlainProgress(stream)
    for kind, data in EVENTS:
        view.emit(kind, **data)
    assert stream.getvalue().splitlines() == [
        "job j1 created (2 tasks, tag t~1)",
        "uploaded /tmp/a.jpg to in (2.0 KiB)",
        "task conv processing 40%",
        "task conv error: bad input",
        "downloaded /tmp/out/a.png (10 B)",
    ]


def test_rich_view_shows_tasks_and_transfers() -> None:
    stream = io.StringIO()
    view = RichProgress(console=Console(file=stream, force_terminal=True, width=120))
    for kind, data in EVENTS:
        view.emit(kind, **data)
    assert not view.started  # the end of the run stops the live view
    text = stream.getvalue()
    for needle in ("job j1", "conv", "error: bad input", "in", "2.0 KiB / 2.0 KiB", "a.png"):
        assert needle in text


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 5 * 1024**2, 3 * 1024**3)] == [
        "0 B",
        "1023 B",
        "1.0 KiB",
        "5.0 MiB",
        "3.0 GiB",
    ]
