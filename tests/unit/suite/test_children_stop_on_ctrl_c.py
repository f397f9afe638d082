"""A process the suite starts stops on SIGINT, however the suite itself was started (issue 30).

Started in the background of a non-interactive shell, the suite inherits SIGINT ignored, and so would
every `mcv serve`, `mcv run` and `mcv batch` it starts: the tests that stop them with Ctrl-C then waited
out their bound (a served process "ignored SIGINT for 30 s"). tests/conftest.py restores the default.
"""

from __future__ import annotations

import signal
import subprocess
import sys

WAITS = "import threading; print('waiting', flush=True); threading.Event().wait()"


def test_a_child_process_stops_on_sigint() -> None:
    with subprocess.Popen([sys.executable, "-c", WAITS], stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "waiting\n"
            child.send_signal(signal.SIGINT)
            try:
                code = child.wait(timeout=30)  # generous: it stops at once
            except subprocess.TimeoutExpired:
                raise AssertionError("waited 30 s for the child to stop on SIGINT: it ignores it") from None
        finally:
            if child.poll() is None:
                child.kill()
    assert code == -signal.SIGINT  # KeyboardInterrupt, not caught: Python ends by the signal itself
