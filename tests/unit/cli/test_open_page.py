"""`mcv run --open`: the job page opens once the job exists, and only where a browser can show."""

from __future__ import annotations

import io

from mcv_pipelines.cli.open_page import JobPageOpener, console_url, has_display


def test_display_is_found_from_the_environment_on_linux_and_always_on_macos() -> None:
    assert not has_display({}, "linux")
    assert has_display({"DISPLAY": ":0"}, "linux")
    assert has_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert has_display({}, "darwin")


def test_opens_the_job_page_once_when_the_job_is_submitted() -> None:
    opened: list[str] = []
    out = io.StringIO()
    sink = JobPageOpener(
        "http://127.0.0.1:8080/", stream=out, display=True, open=lambda url: opened.append(url) is None
    )
    sink.emit("upload", bytes=10)
    assert opened == []
    sink.emit("submitted", job_id="j-1", tag="t", tasks=3)
    sink.emit("reconciled", job_id="j-1", tag="t")
    assert opened == ["http://127.0.0.1:8080/console/#/job/j-1"]
    assert "opened the job page http://127.0.0.1:8080/console/#/job/j-1" in out.getvalue()


def test_without_a_display_nothing_opens_and_the_address_is_said() -> None:
    opened: list[str] = []
    out = io.StringIO()
    sink = JobPageOpener(
        "http://127.0.0.1:8080", stream=out, display=False, open=lambda url: opened.append(url) is None
    )
    sink.emit("submitted", job_id="j-2", tag="t", tasks=1)
    assert opened == []
    said = out.getvalue()
    assert "no browser could be shown here; the job page is http://127.0.0.1:8080/console/#/job/j-2" in said


def test_the_hosted_service_has_no_console_and_says_so() -> None:
    out = io.StringIO()
    JobPageOpener(None, stream=out, display=True, open=lambda url: True).emit("submitted", job_id="j")
    assert "has no console of ours" in out.getvalue()
    assert console_url("http://h:1") == "http://h:1/console/"
