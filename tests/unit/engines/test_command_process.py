"""run_program: output kept bounded, timeouts and cancels kill the whole process group."""

from __future__ import annotations

import fcntl
import sys
import threading
import time
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.process import run_checked, run_program


def test_output_is_captured_and_bounded() -> None:
    outcome = run_program([sys.executable, "-c", "print('x' * 3_000_000); print('tail')"], max_output=10_000)
    assert outcome.returncode == 0
    assert outcome.truncated
    assert len(outcome.output) <= 10_000
    assert outcome.output.rstrip().endswith("tail")


def _lock_is_free(path: Path) -> bool:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def test_timeout_kills_children_too(tmp_path: Path) -> None:
    # The grandchild holds a lock while it lives: the lock coming free proves it died. (Its pid would
    # prove nothing: a sealed program lives in a pid namespace of its own.)
    lock, ready = tmp_path / "child.lock", tmp_path / "child.ready"
    grandchild = (
        "import fcntl, time\n"
        f"handle = open({str(lock)!r}, 'a'); fcntl.flock(handle, fcntl.LOCK_EX)\n"
        f"open({str(ready)!r}, 'w').close(); time.sleep(60)\n"
    )
    script = (
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {grandchild!r}])\n"
        f"while not os.path.exists({str(ready)!r}): time.sleep(0.02)\n"
        "print('ready', flush=True); time.sleep(60)\n"
    )
    outcome = run_program([sys.executable, "-c", script], timeout=5.0)
    assert outcome.timed_out
    assert "ready" in outcome.output
    deadline = time.monotonic() + 10
    while not _lock_is_free(lock) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _lock_is_free(lock)


def test_cancel_stops_the_program() -> None:
    cancelled = threading.Event()
    threading.Timer(0.3, cancelled.set).start()
    outcome = run_program([sys.executable, "-c", "import time; time.sleep(60)"], cancelled=cancelled)
    assert outcome.cancelled
    assert outcome.returncode < 0


def test_run_checked_names_the_step_and_the_last_lines() -> None:
    with pytest.raises(EngineError) as caught:
        run_checked(
            [sys.executable, "-c", "import sys; print('bad frame'); sys.exit(3)"], what="decoding clip.mp4"
        )
    assert caught.value.code == "CONVERSION_FAILED"
    assert caught.value.message == "decoding clip.mp4 failed: bad frame"


def test_a_missing_program_is_an_engine_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError) as caught:
        run_program([str(tmp_path / "no-such-program")])
    assert caught.value.code == "PROGRAM_NOT_STARTED"
