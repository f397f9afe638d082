"""Starting programs under the landlock seal without forking the service (issue 37).

Landlock and seccomp must be set in the program's own process, between fork and exec. Popen's
``preexec_fn`` would do it, but it makes subprocess fork the whole service instead of vfork-ing it:
bench/seal.py measured 27 ms for ``true`` from a small process and 120 ms from one holding 200 MB,
against 5 without it. Instead a few *starters* (starter_main.py) wait ready: small Python processes,
started by a plain (vfork) Popen with the program's pipes, which have built the system's ruleset and
the seccomp filter already. A program takes one, sends it its argv, environment, directory, rules
and limits, and the starter restricts itself and becomes the program: the Popen the service holds is
the program's own, so waiting, killing its group and reading its output work as for any other.
A new starter is made in the background for the next program.

A start that does not fit (extra file descriptors to pass, other pipes) falls back to ``preexec_fn``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines import landlock_seal

__all__ = ["fits", "start", "warm"]

_MAIN = str(Path(__file__).with_name("starter_main.py"))
_READY = 3  # starters kept waiting (about 10 MB each): a worker runs 4 tasks, each one program at a time
_SHAPE: dict[str, object] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE,
                              "stderr": subprocess.STDOUT, "start_new_session": True}  # fmt: skip


class _Starter:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        rules = json.dumps(landlock_seal.system_rules())
        try:
            self.process: subprocess.Popen[bytes] = subprocess.Popen(
                [sys.executable, "-I", "-S", _MAIN, str(theirs.fileno()), rules],
                env={"LC_ALL": "C.UTF-8"},
                cwd="/",
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours

    def close(self) -> None:
        self.control.close()  # the starter exits on it
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class _Pool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: list[_Starter] = []
        self._filling = False
        self._closed = False

    def take(self) -> _Starter:
        with self._lock:
            starter = self._ready.pop() if self._ready else None
        if starter is None:
            starter = _Starter()
        self._fill()
        return starter

    def _fill(self) -> None:
        with self._lock:
            if self._filling or self._closed or len(self._ready) >= _READY:
                return
            self._filling = True
        threading.Thread(target=self._filler, name="mcv-seal-starters", daemon=True).start()

    def _filler(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._closed or len(self._ready) >= _READY:
                        return
                try:
                    starter = _Starter()
                except OSError:
                    return
                if not self._keep(starter):
                    starter.close()
                    return
        finally:
            with self._lock:
                self._filling = False

    def _keep(self, starter: _Starter) -> bool:
        with self._lock:
            if not self._closed:
                self._ready.append(starter)
            return not self._closed

    def warm(self) -> None:
        """Have starters ready before the first program needs one."""
        self._fill()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            ready, self._ready = self._ready, []
        for starter in ready:
            starter.close()


_pool = _Pool()
atexit.register(_pool.close)
warm = _pool.warm


def fits(kwargs: Mapping[str, Any]) -> bool:
    """Whether a Popen with ``kwargs`` can be made by a starter: the pipes and session of
    process.run_program, no descriptor to pass, no function to run first."""
    return (
        all(kwargs.get(name) == value for name, value in _SHAPE.items())
        and not kwargs.get("pass_fds")
        and kwargs.get("preexec_fn") is None
        and set(kwargs) <= {*_SHAPE, "pass_fds", "preexec_fn", "cwd", "env"}
    )


def start(
    argv: Sequence[str],
    cwd: Path | str | None,
    env: Mapping[str, str] | None,
    rules: Sequence[tuple[str, int]] | None,
    limits: Sequence[tuple[int, tuple[int, int]]],
) -> subprocess.Popen[bytes]:
    """``argv`` started by a starter with the task's ``rules`` (None: no task) and ``limits``; OSError
    as Popen raises it where the program cannot be started."""
    request = json.dumps({
        "argv": list(argv),
        "env": dict(os.environ if env is None else env),
        "cwd": None if cwd is None else str(cwd),
        "rules": None if rules is None else [list(rule) for rule in rules],
        "limits": [[which, soft, hard] for which, (soft, hard) in limits],
    }).encode()  # fmt: skip
    starter = _pool.take()
    try:
        starter.control.sendall(request)
        answer = starter.control.recv(65536)  # nothing: the socket closed on exec
    except OSError:
        starter.close()
        raise
    if answer:
        starter.close()
        told = json.loads(answer)
        raise OSError(int(told["errno"]), str(told["message"]))
    starter.control.close()
    process: subprocess.Popen[bytes] = starter.process
    return process
