"""run_program: output kept bounded, timeouts and cancels kill the whole process group."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from engine_needs import unavailable
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.command import network_isolation_prefix
from mcv_pipelines.service.engines.process import run_checked, run_program


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_output_is_captured_and_bounded() -> None:
    outcome = run_program([sys.executable, "-c", "print('x' * 3_000_000); print('tail')"], max_output=10_000)
    assert outcome.returncode == 0
    assert outcome.truncated
    assert len(outcome.output) <= 10_000
    assert outcome.output.rstrip().endswith("tail")


def test_timeout_kills_children_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    outcome = run_program([sys.executable, "-c", script], timeout=1.0)
    assert outcome.timed_out
    assert time.monotonic() - started < 10
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


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


def test_commands_run_without_network_where_the_machine_allows_it() -> None:
    prefix = network_isolation_prefix()
    if not prefix:
        unavailable(
            "needs unshare --net, which is not permitted here (run as root, or allow unprivileged user "
            "namespaces: sysctl kernel.apparmor_restrict_unprivileged_userns=0)"
        )
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        assert run_program([sys.executable, "-c", connect]).returncode == 0
        assert run_program([*prefix, sys.executable, "-c", connect]).returncode != 0
