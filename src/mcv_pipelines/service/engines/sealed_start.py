"""Starting a program in its seal with its limits set by the service, not by a program (issue 24).

Under bubblewrap, ``prlimit`` run inside the seal before the program cost 3 of the seal's 10 ms
(bench/seal.py). Instead bwrap tells the sandbox's pid on ``--info-fd`` and holds the sandbox on
``--block-fd``; the service sets the limits on it with ``prlimit(2)`` and only then lets it run: the
program and everything it starts inherit them. Under Landlock the limits are set with the seal between
fork and exec (landlock/rules.py). Under the other seals the argv and ``preexec_fn``
are seal.py's (``prlimit`` in the argv, or the fallback that sets them between fork and exec).

Example::

    start = sealed_start(["ffmpeg", ...], work, seal_method(), current_scope())
    process = subprocess.Popen(start.argv, pass_fds=start.pass_fds, preexec_fn=start.preexec,
                               start_new_session=True)
    start.started(process)
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import starter
from mcv_pipelines.service.engines.launcher import die_with_parent
from mcv_pipelines.service.engines.seal import (
    DEFAULT_LIMITS,
    Limits,
    Method,
    TaskScope,
    apply_limits,
    bwrap_wrapper,
    death_argv,
    limit_pairs,
    limits_setter,
    sealed_argv,
)

__all__ = ["SealedStart", "sealed_start"]

_INFO_SECONDS = 30.0  # bwrap tells its sandbox's pid within milliseconds; only a hang takes this long


class SealedStart:
    """A program in its seal, started in two steps: ``subprocess.Popen(start.argv,
    pass_fds=start.pass_fds, preexec_fn=start.preexec, start_new_session=True, ...)``, then
    ``start.started(process)``, which sets the limits where the service sets them (under bubblewrap)
    and lets the program run. ``close()`` frees what a start that failed kept open."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path | None,
        method: Method,
        scope: TaskScope | None,
        writable: Sequence[Path] = (),
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self._pipes: tuple[int, int, int, int] | None = None
        self.preexec: Callable[[], None] | None
        self.pass_fds: tuple[int, ...] = ()
        self._landlock: tuple[Sequence[Path] | None, Limits] | None = None
        self._task = False
        self.writable = [*([cwd] if cwd is not None else []), *(scope.writable if scope else ()), *writable]
        if method == "landlock":  # Landlock and seccomp set between fork and exec, with the limits
            readable = None if scope is None else scope.readable
            for directory in self.writable if scope is not None else ():
                directory.mkdir(parents=True, exist_ok=True)
            self._task = scope is not None
            self.argv = list(argv)
            self.preexec = None  # the seal is set by popen(): by the starter, or by a preexec_fn there
            self._landlock = (readable, limits)
            return
        if method != "bwrap":
            self.argv = sealed_argv(argv, cwd, method, scope, writable, limits)
            self.preexec = _chain(apply_limits(limits), None if death_argv() else die_with_parent())
            return
        wrapper = bwrap_wrapper(cwd, scope, writable, argv[0])
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        self._pipes = (info_read, info_write, block_read, block_write)
        self._limits = limit_pairs(limits)
        self.argv = [
            *death_argv(),
            *wrapper,
            "--info-fd",
            str(info_write),
            "--block-fd",
            str(block_read),
            "--",
            *argv,
        ]
        self.preexec = None
        self.pass_fds = (info_write, block_read)

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(argv, **kwargs)``; under the landlock seal a starter (landlock/starter.py)
        makes it where it can, so the service is not forked to set the seal (``preexec_fn``)."""
        if self._landlock is None:
            return subprocess.Popen(argv, **kwargs)
        readable, limits = self._landlock
        if starter.fits(kwargs):
            rules = None if readable is None else landlock_rules.task_rules(argv, readable, self.writable)
            return starter.start(argv, rules, limit_pairs(limits), **kwargs)
        # A start the starter cannot make (descriptors to pass, a function of the caller's to run):
        # the same seal between fork and exec, after the caller's function.
        theirs = kwargs.pop("preexec_fn", None)
        sealing = landlock_rules.prepare(argv, readable, self.writable, limits_setter(limits))

        def preexec() -> None:
            if theirs is not None:
                theirs()
            sealing()

        return subprocess.Popen(argv, preexec_fn=preexec, **kwargs)

    def environment(self, env: Mapping[str, str] | None) -> dict[str, str] | None:
        """The program's environment: ``env`` (None: the service's), with a ``TMPDIR`` of the task's
        under the Landlock seal, which leaves the machine's /tmp out of reach."""
        if self._task:
            return landlock_rules.task_environment(None if env is None else dict(env), self.writable)
        return None if env is None else dict(env)

    def started(self, process: subprocess.Popen[bytes]) -> None:
        """Limit the sandbox bwrap made, then let it run the program; a sandbox that cannot be limited
        is killed (OSError), never let run without its limits."""
        if self._pipes is None:
            return
        info_read, info_write, block_read, block_write = self._pipes
        os.close(info_write)
        os.close(block_read)
        self._pipes = (info_read, -1, -1, block_write)
        try:
            pid = _child_pid(info_read)
            if pid is not None:  # None: bwrap failed before making it, and says why itself
                for which, pair in self._limits:
                    resource.prlimit(pid, which, pair)
        except ProcessLookupError:  # the sandbox ended already: nothing runs unlimited
            pass
        except OSError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # before the block is lifted below
            process.wait()
            raise
        with contextlib.suppress(OSError):
            os.write(block_write, b"\0")
        self.close()

    def close(self) -> None:
        if self._pipes is not None:
            for fd in self._pipes:
                if fd >= 0:
                    os.close(fd)
            self._pipes = None


def _chain(*steps: Callable[[], None] | None) -> Callable[[], None] | None:
    """One ``preexec_fn`` running ``steps`` (None where there is none to run)."""
    given = [step for step in steps if step is not None]
    if not given:
        return None

    def preexec() -> None:
        for step in given:
            step()

    return preexec


def _child_pid(info: int) -> int | None:
    """The sandbox's pid from bwrap's ``--info-fd``, read to its end (bwrap closes it once written)."""
    text = b""
    deadline = time.monotonic() + _INFO_SECONDS
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([info], [], [], left)[0]:
            raise TimeoutError("bubblewrap did not start its sandbox")
        chunk = os.read(info, 4096)
        if not chunk:
            break
        text += chunk
    if not text:
        return None
    try:
        return int(json.loads(text)["child-pid"])
    except (ValueError, KeyError, TypeError) as exc:
        raise OSError(f"bubblewrap told no pid: {text[:100]!r}") from exc


def sealed_start(
    argv: Sequence[str],
    cwd: Path | None,
    method: Method,
    scope: TaskScope | None,
    writable: Sequence[Path] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> SealedStart:
    """``argv`` in the seal ``method`` with ``limits``: see ``SealedStart``."""
    return SealedStart(argv, cwd, method, scope, writable, limits)
