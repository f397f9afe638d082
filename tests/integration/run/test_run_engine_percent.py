"""`mcv run` shows a running task's percent as the service reports it (issue 15)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_helpers import write_slow_pipeline

from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService


def test_plain_progress_shows_the_percent_of_a_running_task(
    isolated: Path, remote: LocalService, capsys: pytest.CaptureFixture[str]
) -> None:
    """Polling a remote service (every second while things change), a 3-second task is seen running
    at least once between its start and its end, with the percent its engine reported."""
    slow, text = write_slow_pipeline(isolated)
    argv = ["run", str(slow), "-p", f"text={text}", "-p", "sleep=3", "--wait", "poll", "--progress", "plain"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    shown = [int(p) for p in re.findall(r"^task md processing (\d+)%", err, re.MULTILINE)]
    assert shown, err
    assert all(0 < percent < 100 for percent in shown), shown
    assert "task md finished" in err
