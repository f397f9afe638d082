"""Starting programs under the landlock seal without forking the service (issue 37).

Landlock and seccomp must be set in the program's own process, between fork and exec. Popen's
``preexec_fn`` would do it, but it makes subprocess fork the whole service instead of vfork-ing it:
27 ms for ``true`` from a small process and 120 ms from one holding 200 MB, on a busy machine,
against 5 without it. Instead one *starter* (starter_main.py), a small Python process started once,
makes each program: it receives the argv, environment, directory, rules, limits and the program's
pipes, and clones itself with CLONE_PARENT, so the program is the service's own child; the starter
and every program it makes get SIGKILL when the service ends, however it ends (a parent-death signal,
set in each before it runs). ``StarterPopen``
is a ``subprocess.Popen`` whose child the starter makes: waiting, killing its group and reading its
output work as for any other.

A start that does not fit (descriptors to pass, other pipes) falls back to ``preexec_fn``.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.launcher import launch

__all__ = ["StarterPopen", "fits", "start", "warm"]

_MAIN = str(Path(__file__).with_name("starter_main.py"))
_SHAPE: dict[str, object] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE,
                              "stderr": subprocess.STDOUT, "start_new_session": True}  # fmt: skip


class _Starter:
    """The starter process and its control socket; made again if it went away."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._closed = False

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        rules = json.dumps(landlock_rules.system_rules())
        # From the launcher thread: the starter's clones are the children of the thread that started
        # it (CLONE_PARENT), and their parent-death signal fires when that thread ends, so it must be
        # one that lives as long as the service (launcher.py).
        try:
            self._process = launch(lambda: subprocess.Popen(
                [sys.executable, "-I", "-S", _MAIN, str(theirs.fileno()), rules, str(os.getpid())],
                env={"LC_ALL": "C.UTF-8"},
                cwd="/",
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            ))  # fmt: skip
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        self._control = ours
        return ours

    def spawn(self, request: bytes, fds: Sequence[int]) -> int:
        """The pid of a program the starter made for ``request`` with ``fds``."""
        with self._lock:
            if self._closed:
                raise OSError(errno.ESHUTDOWN, "the service is stopping")
            for attempt in (1, 2):
                control = self._control or self._start()
                try:
                    socket.send_fds(control, [request], list(fds))
                    answer = control.recv(65536)
                except OSError:
                    answer = b""
                if answer:
                    break
                self._stop()  # it went away: a new one, once
                if attempt == 2:
                    raise OSError(errno.EIO, "the seal's starter did not answer")
        told = json.loads(answer)
        if "pid" not in told:
            raise OSError(int(told["errno"]), str(told["message"]))
        return int(told["pid"])

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # the starter exits on it
            self._control = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(5)
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._process = None

    def warm(self) -> None:
        with self._lock:
            if self._control is None and not self._closed:
                self._start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._stop()


_starter = _Starter()
atexit.register(_starter.close)


def warm() -> None:
    """Start the starter before the first program needs it."""
    _starter.warm()


class StarterPopen(subprocess.Popen[bytes]):
    """A Popen whose child the starter makes, sealed with ``rules`` (None: no task) and ``limits``."""

    def __init__(
        self,
        argv: Sequence[str],
        rules: Sequence[tuple[str, int]] | None,
        limits: Sequence[tuple[int, tuple[int, int]]],
        **kwargs: Any,
    ) -> None:
        self._seal = (rules, limits)
        super().__init__(list(argv), **kwargs)

    def _execute_child(self, args: Sequence[str], executable: object, preexec_fn: object, close_fds: bool,
                       pass_fds: object, cwd: str | None, env: Mapping[str, str] | None, startupinfo: object,
                       creationflags: int, shell: bool, p2cread: int, p2cwrite: int, c2pread: int,
                       c2pwrite: int, errread: int, errwrite: int, *rest: object) -> None:  # fmt: skip
        rules, limits = self._seal
        request = json.dumps({
            "argv": list(args),
            "env": dict(os.environ if env is None else env),
            "cwd": None if cwd is None else str(cwd),
            "rules": None if rules is None else [list(rule) for rule in rules],
            "limits": [[which, soft, hard] for which, (soft, hard) in limits],
        }).encode()  # fmt: skip
        error_read, error_write = os.pipe()
        try:
            try:
                self.pid = _starter.spawn(request, [p2cread, c2pwrite, errwrite, error_write])
                self._child_created = True
            finally:
                os.close(error_write)
            self._close_child_ends(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)
            told = b""
            while chunk := os.read(error_read, 50000):
                told += chunk
        finally:
            os.close(error_read)
        if told:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.returncode = 127
            number, _, message = told.decode(errors="replace").partition(":")
            raise OSError(int(number, 16), message)

    def _close_child_ends(self, *ends: int) -> None:
        """The child's ends of its pipes, as Popen closes them once the child has them."""
        p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite = ends
        devnull = getattr(self, "_devnull", None)
        pairs = ((p2cread, p2cwrite), (c2pwrite, c2pread), (errwrite, errread))
        for child_end, our_end in pairs:
            if child_end != -1 and our_end != -1 and child_end != devnull:
                os.close(child_end)
        if devnull is not None:
            os.close(devnull)
        self._closed_child_pipe_fds = True


def fits(kwargs: Mapping[str, Any]) -> bool:
    """Whether a Popen with ``kwargs`` can be made by the starter: the pipes and session of
    process.run_program, no descriptor to pass, no function to run first."""
    return (
        all(kwargs.get(name) == value for name, value in _SHAPE.items())
        and not kwargs.get("pass_fds")
        and kwargs.get("preexec_fn") is None
        and set(kwargs) <= {*_SHAPE, "pass_fds", "preexec_fn", "cwd", "env"}
    )


def start(
    argv: Sequence[str],
    rules: Sequence[tuple[str, int]] | None,
    limits: Sequence[tuple[int, tuple[int, int]]],
    **kwargs: Any,
) -> subprocess.Popen[bytes]:
    """``argv`` made by the starter with the task's ``rules`` (None: no task) and ``limits``; OSError
    as Popen raises it where the program cannot be started."""
    options = {name: value for name, value in kwargs.items() if name not in ("pass_fds", "preexec_fn")}
    return StarterPopen(argv, rules, limits, **options)
