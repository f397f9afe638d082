"""A batch SIGKILLed in the middle of its downloads, then run again to the end, leaves exactly its
outputs in the output directory: no partial file of the killed attempt stays (issue 14)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from batch_helpers import BLOBS_PIPELINE

from mcv_pipelines.service.server import LocalService

ROWS = 4
SIZE = 640 * 1024  # about ten chunks of a file answer, each slowed down by files_delay
COMMAND = [sys.executable, "-m", "mcv_pipelines", "batch", "blobs.yaml", "--manifest", "rows.csv",
           "--concurrency", str(ROWS), "--report", "report.jsonl", "--events", "events.jsonl",
           "--progress", "none"]


def _make_rows(work: Path) -> dict[str, bytes]:
    (work / "blobs.yaml").write_text(BLOBS_PIPELINE)
    (work / "in").mkdir()
    contents = {f"b{i}.bin": os.urandom(SIZE) for i in range(ROWS)}
    for name, data in contents.items():
        (work / "in" / name).write_bytes(data)
    (work / "rows.csv").write_text("file\n" + "".join(f"in/{name}\n" for name in contents))
    return contents


def _parts(out: Path) -> list[str]:
    """The partial downloads in ``out`` (``.NAME.<pid>-<hex>.part``)."""
    try:
        return [p.name for p in out.iterdir() if p.name.endswith(".part")]
    except FileNotFoundError:
        return []


@pytest.mark.parametrize("remote", ["files_delay=0.08"], indirect=True)
def test_killed_while_downloading_then_resumed_leaves_only_the_outputs(
    isolated: Path, remote: LocalService
) -> None:
    contents = _make_rows(isolated)
    out = isolated / "out"
    process = subprocess.Popen(COMMAND, cwd=isolated, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        limit = time.monotonic() + 60
        while len(_parts(out)) < 2:  # downloads under way (each takes about a second)
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < limit, "no download started"
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
        if process.stderr:
            process.stderr.close()
    assert _parts(out), "the kill came mid-download"

    done = subprocess.run(COMMAND, cwd=isolated, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(contents)
    for name, data in contents.items():
        assert (out / name).read_bytes() == data
