"""Running an external program for an engine: timeout, cancellation, bounded output.

Every engine that calls a program goes through ``run_program``: the child gets its own process group
(so a timeout or a cancel kills it and everything it started), stdin is /dev/null, and stdout and
stderr are read together into a buffer that keeps only the last ``max_output`` bytes (a chatty
program cannot fill the memory). A caller that parses the output as the program's answer asks for
stderr apart (``answer_only``): a warning is never read as the answer (fontconfig's 22 lines about an
unwritable cache under a read-only root were once taken for a font's path). Every program runs
sealed (seal.py): no network, a read-only system with only its task's directories writable,
resource limits; its environment is built from an allow-list
(environment.py), never the service's own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.failures import hide_paths
from mcv_pipelines.service.engines.seal import (
    DEFAULT_LIMITS,
    Limits,
    current_scope,
    seal_method,
)
from mcv_pipelines.service.engines.sealed_start import sealed_start

__all__ = [
    "DEFAULT_MAX_OUTPUT",
    "ProcessOutcome",
    "find_program",
    "program_version",
    "run_checked",
    "run_program",
]

DEFAULT_MAX_OUTPUT = 1_000_000
log = logging.getLogger(__name__)
_POLL_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a program ended: exit code (negative: killed by that signal) and its console output
    (stdout alone when run with ``answer_only``, its stderr then in ``errors``)."""

    returncode: int
    output: str
    timed_out: bool = False
    cancelled: bool = False
    truncated: bool = False
    errors: str = ""


class _TailBuffer:
    """Keeps the last ``limit`` bytes written to it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        self.data.extend(chunk)
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]
            self.truncated = True


def _drain(stream: object, buffer: _TailBuffer, on_line: Callable[[str], None] | None = None) -> None:
    read = getattr(stream, "read1", None) or getattr(stream, "read")  # noqa: B009 - typed as object
    pending = b""
    while True:
        try:
            chunk = read(65536)
        except (OSError, ValueError):  # closed under us after a process that escaped its group
            return
        if not chunk:
            return
        buffer.add(chunk)
        if on_line is not None:
            *lines, pending = (pending + chunk).replace(b"\r", b"\n").split(b"\n")
            pending = pending[-4096:]  # a line without an end is no progress line: keep it bounded
            for line in lines:
                _hear(on_line, line)


def _hear(on_line: Callable[[str], None], line: bytes) -> None:
    try:
        on_line(line.decode("utf-8", "replace"))
    except Exception:  # progress is a courtesy: a parser's bug must not fail the program's run
        log.exception("progress line not understood")


class _ExitWatch:
    """Waits for a process's end, waking the moment it comes (a pidfd). Popen.wait(timeout) polls
    with growing sleeps instead, which added up to 20 ms to a 13 ms program (bench/seal.py)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.poller: select.poll | None = None
        try:
            self.fd: int | None = os.pidfd_open(process.pid)
        except (OSError, AttributeError):  # an old kernel: fall back to Popen's polling
            self.fd = None
        else:
            self.poller = select.poll()
            self.poller.register(self.fd, select.POLLIN)

    def wait(self, seconds: float) -> None:
        if self.poller is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(seconds)
        else:
            self.poller.poll(seconds * 1000)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _check_startable(program: str, env: Mapping[str, str]) -> None:
    """A seal starts first and would report a missing program as its own failure: look before."""
    path = program if os.sep in program else shutil.which(program, path=env.get("PATH"))
    if path is None or not os.access(path, os.X_OK) or os.path.isdir(path):
        raise EngineError("PROGRAM_NOT_STARTED", f"could not start {program}: No such program")


def run_program(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    cancelled: threading.Event | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    pass_fds: Sequence[int] = (),
    on_line: Callable[[str], None] | None = None,
    writable: Sequence[Path] = (),
    limits: Limits = DEFAULT_LIMITS,
    answer_only: bool = False,
) -> ProcessOutcome:
    """Run ``argv`` (no shell) and wait for it, killing its process group on timeout or cancel.

    ``on_line`` hears each line of its output as it comes (a progress parser). In a task's scope
    (seal.task_scope) the program may write only ``cwd``, ``writable`` and the task's directories.
    With ``answer_only`` the output is stdout alone and stderr is kept apart in ``errors``.
    ``env`` holds the engine's own variables, added to the allow-listed ones (environment.py): the
    program never inherits the service's environment.
    """
    if cwd is not None:
        cwd.mkdir(parents=True, exist_ok=True)
    environment = program_environment(env)
    _check_startable(argv[0], environment)
    start = sealed_start(argv, cwd, seal_method(), current_scope(), writable, limits)
    try:
        process = start.popen(
            start.argv,
            cwd=cwd,
            env=start.environment(environment),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if answer_only else subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(*pass_fds, *start.pass_fds),
            preexec_fn=start.preexec,  # None unless the limits need it (seal.py)
        )
    except OSError as exc:
        start.close()
        raise EngineError("PROGRAM_NOT_STARTED", f"could not start {argv[0]}: {exc.strerror}") from exc
    try:
        start.started(process)  # the limits set, the program runs
    except OSError as exc:
        start.close()
        _close_pipes(process)
        raise EngineError("PROGRAM_NOT_STARTED", f"could not limit {argv[0]}: {exc}") from exc
    buffer, errors = _TailBuffer(max_output), _TailBuffer(max_output)
    readers = [threading.Thread(target=_drain, args=(process.stdout, buffer, on_line), daemon=True)]
    if process.stderr is not None:
        readers.append(threading.Thread(target=_drain, args=(process.stderr, errors), daemon=True))
    for reader in readers:
        reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    timed_out = was_cancelled = False
    exited = _ExitWatch(process)
    try:
        while process.poll() is None:
            if cancelled is not None and cancelled.is_set():
                was_cancelled = True
            elif deadline is not None and time.monotonic() >= deadline:
                timed_out = True
            if timed_out or was_cancelled:
                _kill_group(process)
                break
            exited.wait(_POLL_SECONDS)
    finally:
        exited.close()
        if process.poll() is None:
            _kill_group(process)
        process.wait()
        # Children that outlive the leader keep the pipe open; kill them before waiting for the reader.
        _kill_group(process)
        for reader in readers:
            reader.join(5)
        _close_pipes(process)
    return ProcessOutcome(
        returncode=process.returncode,
        output=buffer.data.decode("utf-8", "replace"),
        timed_out=timed_out,
        cancelled=was_cancelled,
        truncated=buffer.truncated,
        errors=errors.data.decode("utf-8", "replace"),
    )


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _last_lines(text: str, count: int = 5) -> str:
    """The program's last meaningful lines, absolute paths cut to their file names."""
    lines = [
        hide_paths(line.strip())
        for line in text.strip().splitlines()
        if any(ch.isalnum() for ch in line)  # drop lone braces and rules (JSON, banners)
    ]
    return " | ".join(lines[-count:])


def run_checked(
    argv: Sequence[str],
    *,
    what: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    cancelled: threading.Event | None = None,
    ok_codes: frozenset[int] = frozenset({0}),
    pass_fds: Sequence[int] = (),
    on_line: Callable[[str], None] | None = None,
    writable: Sequence[Path] = (),
    limits: Limits = DEFAULT_LIMITS,
    answer_only: bool = False,
) -> ProcessOutcome:
    """``run_program``, turning a timeout, a cancel or a failing exit code into an EngineError."""
    outcome = run_program(
        argv,
        cwd=cwd,
        env=env,
        timeout=timeout,
        cancelled=cancelled,
        pass_fds=pass_fds,
        on_line=on_line,
        writable=writable,
        limits=limits,
        answer_only=answer_only,
    )
    if outcome.timed_out:
        raise EngineError("TIMEOUT", f"{what} did not finish within {timeout:g} seconds and was stopped")
    if outcome.cancelled:
        raise EngineError("CANCELLED", f"{what} was cancelled")
    if outcome.returncode not in ok_codes:
        detail = _last_lines(f"{outcome.output}\n{outcome.errors}") or f"exit code {outcome.returncode}"
        raise EngineError("CONVERSION_FAILED", f"{what} failed: {detail}")
    return outcome


def find_program(*names: str) -> str | None:
    """The path of the first of ``names`` on PATH."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def program_version(
    argv: Sequence[str], pattern: str, timeout: float = 30, limits: Limits = DEFAULT_LIMITS
) -> str | None:
    """Run ``argv`` and return the first group of ``pattern`` found in its output, or None."""
    try:
        outcome = run_program(argv, timeout=timeout, max_output=65536, limits=limits)
    except EngineError:
        return None
    if outcome.timed_out:
        return None
    match = re.search(pattern, outcome.output)
    return match.group(1) if match else None
