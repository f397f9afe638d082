"""A DevTools protocol connection to Chromium over ``--remote-debugging-pipe``, shared by threads.

Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and events on fd 4. Python's
subprocess cannot place pipes on given descriptor numbers without ``preexec_fn`` (unsafe with
threads), so a one-line Python trampoline moves them there and then execs Chromium.

One browser serves several tasks at once (warm.py), so the connection is multiplexed: each ``call``
waits for its own reply (by id), events go to the queue of their session (``events``), and events
named in ``handlers`` (Fetch.requestPaused, Target.attachedToTarget) go to a small pool of threads,
since answering them takes calls of their own and the reader must never wait.

Chromium is started from the service's launcher thread with a parent-death signal (launcher.py), with
the environment it is given (never the service's): it ends with the service, however that ends.
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
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.launcher import die_with_parent, launch

__all__ = ["DevToolsPipe", "Message"]

Message = dict[str, Any]

# Puts the pipe ends on fds 3 and 4, then becomes Chromium. (sh cannot: dash takes one-digit fds only.)
_TRAMPOLINE = (
    "import os,sys; os.dup2(int(sys.argv[1]),3); os.dup2(int(sys.argv[2]),4); "
    "os.execv(sys.argv[3],sys.argv[3:])"
)
_CHUNK = 1 << 16
_TICK = 0.2


def _above_four(fd: int) -> int:
    if fd > 4:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class _Reply:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.message: Message = {}


class DevToolsPipe:
    """Chromium started with ``argv`` (plus the pipe flag), spoken to by any thread."""

    def __init__(
        self,
        argv: Sequence[str],
        handlers: Mapping[str, Callable[[Message], None]] | None = None,
        env: Mapping[str, str] | None = None,
        seal: Callable[[], None] | None = None,
    ) -> None:
        self.handlers = dict(handlers or {})
        self._replies: dict[int, _Reply] = {}
        self._events: dict[str, queue.Queue[Message]] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()  # not _lock: a full pipe must not stop the reader
        self._next_id = 0
        self._closed = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="devtools-events")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # The child's ends must not sit on 3 or 4 themselves, or moving one there would clobber the other.
        to_browser_read, from_browser_write = _above_four(to_browser_read), _above_four(from_browser_write)
        environment = dict(env) if env is not None else program_environment()
        try:
            self.process = launch(lambda: subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _TRAMPOLINE, str(to_browser_read), str(from_browser_write),
                 *argv, "--remote-debugging-pipe"],
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=(to_browser_read, from_browser_write),
                preexec_fn=_then(die_with_parent(), seal),  # a warm browser starts rarely: the fork's
                # cost is fine; ``seal``: Landlock under the landlock seal (warm.py)
            ))  # fmt: skip
        except OSError as exc:
            os.close(self._to_browser)
            os.close(self._from_browser)
            self._pool.shutdown(wait=False)
            raise EngineError("PROGRAM_NOT_STARTED", f"could not start Chromium: {exc.strerror}") from exc
        finally:
            os.close(to_browser_read)
            os.close(from_browser_write)
        self._reader = threading.Thread(target=self._read, daemon=True, name="devtools-reader")
        self._reader.start()

    @property
    def alive(self) -> bool:
        return not self._closed.is_set() and self.process.poll() is None

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._from_browser, _CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                self._closed.set()
                with self._lock:
                    waiting = list(self._replies.values())
                for reply in waiting:
                    reply.done.set()
                return
            pending += chunk
            *complete, pending = pending.split(b"\0")
            for raw in complete:
                with contextlib.suppress(ValueError):
                    self._dispatch(json.loads(raw))

    def _dispatch(self, message: Message) -> None:
        if "id" in message:
            with self._lock:
                reply = self._replies.pop(int(message["id"]), None)
            if reply is not None:
                reply.message = message
                reply.done.set()
            return
        handler = self.handlers.get(str(message.get("method")))
        if handler is not None:
            with contextlib.suppress(RuntimeError):  # shutting down
                self._pool.submit(self._handle, handler, message)
            return
        session = message.get("sessionId")
        if session:
            with self._lock:
                events = self._events.get(session)
            if events is not None:
                events.put(message)

    @staticmethod
    def _handle(handler: Callable[[Message], None], message: Message) -> None:
        with contextlib.suppress(EngineError):  # the browser or the target went away meanwhile
            handler(message)

    def events(self, session: str) -> queue.Queue[Message]:
        """The queue that receives ``session``'s events from now on (until ``forget``)."""
        with self._lock:
            return self._events.setdefault(session, queue.Queue())

    def forget(self, session: str) -> None:
        with self._lock:
            self._events.pop(session, None)

    def call(
        self,
        method: str,
        params: Message | None = None,
        session: str | None = None,
        deadline: float | None = None,
        cancelled: threading.Event | None = None,
    ) -> Message:
        """Send one command and wait for its reply (until the monotonic ``deadline``)."""
        reply = _Reply()
        with self._lock:
            self._next_id += 1
            number = self._next_id
            self._replies[number] = reply
        message: Message = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            with self._write_lock:
                while data:
                    data = data[os.write(self._to_browser, data) :]
        except OSError:
            with self._lock:
                self._replies.pop(number, None)
            raise EngineError("CONVERSION_FAILED", f"Chromium stopped listening before {method}") from None
        try:
            while not reply.done.wait(_TICK):
                if cancelled is not None and cancelled.is_set():
                    raise EngineError("CANCELLED", f"{method} was cancelled")
                if deadline is not None and time.monotonic() >= deadline:
                    raise EngineError("TIMEOUT", f"{method} did not finish in time and was stopped")
        finally:
            with self._lock:
                self._replies.pop(number, None)
        if not reply.message:
            raise EngineError("CONVERSION_FAILED", f"Chromium ended unexpectedly during {method}")
        if "error" in reply.message:
            detail = reply.message["error"].get("message", "error")
            raise EngineError("CONVERSION_FAILED", f"Chromium refused {method}: {detail}")
        result: Message = reply.message.get("result", {})
        return result

    def close(self) -> None:
        """Ask Chromium to close, then kill its process group whatever it did."""
        with contextlib.suppress(EngineError):
            if self.alive:
                self.call("Browser.close", deadline=time.monotonic() + 3)
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
        self._pool.shutdown(wait=False, cancel_futures=True)


def _then(first: Callable[[], None] | None, second: Callable[[], None] | None) -> Callable[[], None] | None:
    """One ``preexec_fn`` running ``first``, then ``second`` (either may be None)."""
    if first is None or second is None:
        return first or second

    def both() -> None:
        first()
        second()

    return both
