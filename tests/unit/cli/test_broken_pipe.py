"""`mcv ... | head` must end quietly when the reader closes the pipe early."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_a_closed_pipe_is_not_reported_as_an_internal_error() -> None:
    # `mcv catalog show` prints some 600 kB of JSON, far more than a pipe buffer holds;
    # `head -c 10` reads a little and closes the pipe.
    command = (
        f"{sys.executable} -m mcv_pipelines catalog show --format json | head -c 10"
    )
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "internal error" not in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == '{\n  "query'
    assert done.returncode == 0
