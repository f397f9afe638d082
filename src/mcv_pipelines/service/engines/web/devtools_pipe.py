"""A minimal DevTools protocol client over Chromium's ``--remote-debugging-pipe``.

Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and events on fd 4. Python's
subprocess cannot place pipes on given descriptor numbers without ``preexec_fn`` (unsafe with
threads), so a one-line Python trampoline moves them there and then execs Chromium.
The browser runs in its own process group and is killed with it when the session ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from mcv_pipelines.service.engines.base import EngineError

__all__ = ["DevToolsSession"]

# Puts the pipe ends on fds 3 and 4, then becomes Chromium. (sh cannot: dash takes one-digit fds only.)
_TRAMPOLINE = (
    "import os,sys; os.dup2(int(sys.argv[1]),3); os.dup2(int(sys.argv[2]),4); "
    "os.execv(sys.argv[3],sys.argv[3:])"
)
_CHUNK = 1 << 16


def _above_four(fd: int) -> int:
    if fd > 4:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class DevToolsSession:
    """Start Chromium with ``argv`` (plus the pipe flag) and talk to it; use as a context manager."""

    def __init__(self, argv: Sequence[str], deadline: float, cancelled: threading.Event) -> None:
        self.deadline = deadline
        self.cancelled = cancelled
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._events: list[dict[str, Any]] = []
        self._next_id = 0
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # The child's ends must not sit on 3 or 4 themselves, or moving one there would clobber the other.
        to_browser_read, from_browser_write = _above_four(to_browser_read), _above_four(from_browser_write)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _TRAMPOLINE, str(to_browser_read), str(from_browser_write),
                 *argv, "--remote-debugging-pipe"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=(to_browser_read, from_browser_write),
            )  # fmt: skip
        except OSError as exc:
            os.close(self._to_browser)
            os.close(self._from_browser)
            raise EngineError("PROGRAM_NOT_STARTED", f"could not start Chromium: {exc.strerror}") from exc
        finally:
            os.close(to_browser_read)
            os.close(from_browser_write)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def __enter__(self) -> DevToolsSession:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._from_browser, _CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                self._messages.put(None)
                return
            pending += chunk
            *complete, pending = pending.split(b"\0")
            for raw in complete:
                with contextlib.suppress(ValueError):
                    self._messages.put(json.loads(raw))

    def _next_message(self, what: str) -> dict[str, Any]:
        while True:
            if self.cancelled.is_set():
                raise EngineError("CANCELLED", f"{what} was cancelled")
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise EngineError("TIMEOUT", f"{what} did not finish in time and was stopped")
            try:
                message = self._messages.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue
            if message is None:
                raise EngineError("CONVERSION_FAILED", f"Chromium ended unexpectedly during {what}")
            return message

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send one command and wait for its reply; events that arrive meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except OSError:
            raise EngineError("CONVERSION_FAILED", f"Chromium stopped listening before {method}") from None
        while True:
            reply = self._next_message(method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    detail = reply["error"].get("message", "error")
                    raise EngineError("CONVERSION_FAILED", f"Chromium refused {method}: {detail}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self._events.append(reply)

    def wait_event(self, method: str, session: str | None, until: float) -> bool:
        """Wait for an event until the monotonic time ``until``; False when it did not come."""
        while True:
            for index, event in enumerate(self._events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self._events[index]
                    return True
            if time.monotonic() >= until:
                return False
            saved, self.deadline = self.deadline, min(self.deadline, until)
            try:
                message = self._next_message(method)
            except EngineError as exc:
                if exc.code != "TIMEOUT" or time.monotonic() >= saved:
                    raise
                return False
            finally:
                self.deadline = saved
            if "method" in message:
                self._events.append(message)

    def close(self) -> None:
        with contextlib.suppress(EngineError, OSError):
            if self.process.poll() is None:
                os.write(self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        with contextlib.suppress(OSError):
            os.close(self._to_browser)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(3)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._reader.join(3)
        with contextlib.suppress(OSError):
            os.close(self._from_browser)
