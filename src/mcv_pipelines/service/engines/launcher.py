"""Starting the warm engine processes so that they die with the service (issue 37).

A warm LibreOffice or Chromium outlives the conversion that started it, and must not outlive the
service, however the service ends (SIGTERM, SIGINT, SIGKILL). The kernel's parent-death signal
(``prctl(PR_SET_PDEATHSIG)``, kept across ``execve``) does it, with a catch: it fires when the
*thread* that forked the child ends, not the process. The pool starts a LibreOffice from a thread
made for that start, which ends a moment later; bubblewrap's ``--die-with-parent`` is the same
signal. So every warm process is forked from one long-lived thread of the service (``launch``),
which ends only with the service.

A warm process starts rarely, so setting the signal in ``preexec_fn`` (which makes subprocess fork
the service's whole heap, some 28 ms) costs nothing worth counting; per-task programs get it from
util-linux ``setpriv`` instead (seal.py).

Example::

    process = launch(lambda: subprocess.Popen(argv, preexec_fn=die_with_parent(), start_new_session=True))
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any, TypeVar

__all__ = ["die_with_parent", "launch"]

_PR_SET_PDEATHSIG = 1
T = TypeVar("T")


class _Launcher:
    """One daemon thread that runs what it is given, for as long as the service runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, start: Callable[[], T]) -> T:
        if threading.current_thread() is self._thread:
            return start()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="mcv-launcher", daemon=True)
                self._thread.start()
        done: Future[T] = Future()
        self._queue.put((start, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            start, done = self._queue.get()
            try:
                done.set_result(start())
            except BaseException as exc:  # handed to the caller, who raises it
                done.set_exception(exc)


_LAUNCHER = _Launcher()


def launch(start: Callable[[], T]) -> T:
    """``start()`` (a Popen) run on the service's launcher thread, so the child's parent-death
    signal fires when the service ends and not when the calling thread does."""
    return _LAUNCHER.run(start)


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child SIGKILL when its parent ends; None where prctl is missing."""
    name = ctypes.util.find_library("c")
    try:
        prctl = ctypes.CDLL(name, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None
    parent = os.getpid()
    kill = int(signal.SIGKILL)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:  # the service ended between fork and prctl
            os._exit(1)

    return preexec
