"""Starting a program in its seal with its limits set by the service, not by a program (issue 24).

Under bubblewrap, ``prlimit`` run inside the seal before the program cost 3 of the seal's 10 ms
(bench/seal.py). Instead bwrap tells the sandbox's pid on ``--info-fd`` and holds the sandbox on
``--block-fd``; the service sets the limits on it with ``prlimit(2)`` and only then lets it run: the
program and everything it starts inherit them. Under the other seals the argv and ``preexec_fn``
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
from collections.abc import Callable, Sequence
from pathlib import Path

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
        if method != "bwrap":
            self.argv = sealed_argv(argv, cwd, method, scope, writable, limits)
            self.preexec = _chain(apply_limits(limits), None if death_argv() else die_with_parent())
            self.pass_fds: tuple[int, ...] = ()
            return
        wrapper = bwrap_wrapper(cwd, scope, writable)
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        self._pipes = (info_read, info_write, block_read, block_write)
        self._limits = limit_pairs(limits)
        self.argv = [*wrapper, "--info-fd", str(info_write), "--block-fd", str(block_read), "--", *argv]
        self.preexec = None
        self.pass_fds = (info_write, block_read)

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
