"""Real `mcv serve` processes for the team tests (imported by name: pytest puts this folder on
sys.path): start one, read what it printed, stop or SIGKILL it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

import waiting

__all__ = ["MCV", "Serve", "wait_until"]

MCV = [sys.executable, "-m", "mcv_pipelines"]


class Serve:
    """``mcv serve ARGS`` in a subprocess, started and ready (it printed "serving"); ``wrap``: a
    command that runs it (``unshare ...``), given the command line as its last arguments."""

    def __init__(
        self, args: list[str], log: Path, env: dict[str, str] | None = None, wrap: list[str] | None = None
    ) -> None:
        self.log = log
        with log.open("ab") as err:  # the child has its own copy of the descriptor
            self.process = subprocess.Popen(
                [*(wrap or []), *MCV, "serve", "--port", "0", *args],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env={**os.environ, **(env or {})},
            )
        self.printed: dict[str, str] = {}
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("serving"):
                break
            name, _, value = line.partition(":")
            self.printed[name.strip()] = value.strip()
        else:
            self.process.wait(10)
            self._close()
            raise AssertionError(f"mcv serve {' '.join(args)} did not start: {log.read_text()}")
        self.base = self.printed["base URL"]

    def get(self, path: str, key: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.get(self.base + path, headers=headers, timeout=30)

    def signal(self, number: int) -> None:
        self.process.send_signal(number)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._close()

    def _close(self) -> None:
        if self.process.stdout:
            self.process.stdout.close()


def wait_until(check: Callable[[], object], timeout: float, what: str) -> None:
    """tests/waiting.py's wait_until, as the team tests call it."""
    waiting.wait_until(check, what=what, timeout=timeout)
