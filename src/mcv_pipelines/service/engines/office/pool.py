"""Warm LibreOffice: long-running soffice processes, each driven by its own UNO bridge helper.

One ``OfficeProcess`` is an soffice listening on a private pipe with its own profile directory, plus
the helper (``uno_bridge.py`` under the system Python) that talks UNO to it; the service talks JSON
lines to the helper. Under bubblewrap both run in a view of their own, and each conversion's files
pass through the process's exchange directory (office_view.py).

The ``OfficePool`` hands out one process per conversion, starting processes lazily as conversions come
(the scheduler runs at most ``config.workers`` tasks at once, so the pool holds at most one process
per task slot; a conversion that finds none idle takes the first free of a process given back and one
started for it in the background, see ``OfficePool._take``). A process is replaced when it dies, has
done ``max_conversions`` or holds more than ``memory_bound`` of resident memory after a conversion
(LibreOffice keeps caches and grows with what it opened), or does not answer the ping sent before each
conversion (it hung while idle); a conversion past its timeout, or cancelled, kills its process only:
the next conversion starts a fresh one. Processes beyond ``keep_warm`` that sit idle for
``idle_seconds`` are stopped, so a burst of work does not leave every slot's LibreOffice (some 160 MB
each) resident for good.

No LibreOffice outlives the service (issue 37): each is started from the service's launcher thread
with a parent-death signal (launcher.py), in a PID namespace of its own where one can be made, so
soffice.bin (a child of the launcher oosplash, which the signal does not reach) ends with it; its
profile and pipe are swept by the next pool of a service killed outright (leftovers.py).

Example::

    pool = OfficePool("/usr/bin/soffice", "/usr/bin/python3")
    pool.convert({"source": "/tmp/a.docx", "target": "/tmp/a.pdf", "export_filter": "writer_pdf_Export",
                  "format": "pdf"}, timeout=60, cancelled=threading.Event())
    pool.close()
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.launcher import die_with_parent, launch
from mcv_pipelines.service.engines.leftovers import HeldDirectory, sweep
from mcv_pipelines.service.engines.office.office_view import OfficeView

__all__ = ["BRIDGE_SCRIPT", "DEFAULT_MEMORY_BOUND", "OfficePool", "OfficeProcess"]

BRIDGE_SCRIPT = Path(__file__).with_name("uno_bridge.py")
_START_SECONDS = 90.0  # a first start makes the profile: slow on a busy machine
_STOP_SECONDS = 5.0
_PING_SECONDS = 5.0  # a warm soffice answers in a millisecond or two
_POLL_SECONDS = 0.1
_LIVE: weakref.WeakSet[OfficePool] = weakref.WeakSet()
# soffice.bin idles at some 140 MB resident after a small document; twice that after a conversion
# means it kept what a large one loaded: a fresh process gives it back (issue 24: the idle worker).
DEFAULT_MEMORY_BOUND = 320 * 1024**2


_PREFIX = "mcv-office-"


def _environment(home: Path) -> dict[str, str]:
    return program_environment({"HOME": str(home), "LANG": "C.UTF-8", "SAL_USE_VCLPLUGIN": "svp"})


def _pipe_files(root: Path) -> list[Path]:
    """The socket files LibreOffice made for the process of ``root``, in /tmp whatever TMPDIR says:
    the pipe it accepts on (named after ``root``) and its single-instance pipe, named by the MD5 of
    the profile's URL in UTF-16, each byte in hex without leading zero (desktop's officeipcthread)."""
    digest = hashlib.md5((root / "profile").as_uri().encode("utf-16-le"), usedforsecurity=False).digest()
    single = "SingleOfficeIPC_" + "".join(f"{byte:x}" for byte in digest)
    tmp = Path("/tmp")  # noqa: S108 - where LibreOffice puts them
    return [*tmp.glob(f"OSL_PIPE_*_{root.name}"), *tmp.glob(f"OSL_PIPE_*_{single}")]


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill(process: subprocess.Popen[bytes] | None) -> None:
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(_STOP_SECONDS)


class OfficeProcess:
    """One soffice and its bridge; not thread-safe: the pool lends it to one conversion at a time."""

    def __init__(self, soffice: str, python: str) -> None:
        self.held = HeldDirectory.make(_PREFIX)
        self.root = self.held.path
        self.conversions = 0
        self.last_used = time.monotonic()
        self.worker: int | None = None  # soffice.bin, found once started (a failed start kills none)
        pipe = self.root.name  # named after the profile, so a sweep finds its socket
        # Its own view of the system, fed through an exchange directory (office_view.py).
        self.view = OfficeView(self.root, seal.seal_method())
        profile = self.view.profile_uri
        env = _environment(self.root)
        # Each process in its own session: a kill takes soffice.bin and anything it started. Started
        # from the launcher thread with a parent-death signal: nothing outlives the service.
        office_argv = self.view.office_argv(
            [soffice, f"-env:UserInstallation={profile}", "--headless", "--invisible",
             "--norestore", "--nologo", "--nodefault", "--nolockcheck", "--nofirststartwizard",
             f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext"])  # fmt: skip
        office_preexec = self.view.office_preexec(office_argv, die_with_parent())  # Landlock, if so sealed
        self.office: subprocess.Popen[bytes] | None = launch(lambda: subprocess.Popen(
            office_argv,
            env=self.view.environment(env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=office_preexec,
        ))  # fmt: skip
        bridge_argv = self.view.bridge_argv([python, "-I", str(BRIDGE_SCRIPT), pipe], BRIDGE_SCRIPT)
        bridge_preexec = self.view.bridge_preexec(python, BRIDGE_SCRIPT, die_with_parent())
        self.bridge: subprocess.Popen[bytes] | None = launch(lambda: subprocess.Popen(
            bridge_argv,
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=bridge_preexec,
        ))  # fmt: skip
        self._pending = b""
        try:
            ready = self._read(_START_SECONDS, None)
        except EngineError as exc:
            self.kill()
            raise EngineError("ENGINE_NOT_STARTED", f"LibreOffice did not start: {exc.message}") from exc
        if not ready.get("ok"):
            self.kill()
            raise EngineError("ENGINE_NOT_STARTED", f"LibreOffice did not start: {ready.get('message')}")
        # soffice is a launcher (oosplash) that runs soffice.bin as its child, and starts it again
        # when a new profile asks for a restart: the one converting is the one found now.
        self.worker = self.view.worker(self.office.pid) if self.office else None

    @property
    def pid(self) -> int | None:
        """The process that converts (soffice.bin), or the launcher where none was found."""
        return self.worker or (self.office.pid if self.office is not None else None)

    def resident_memory(self) -> int:
        """Bytes of RAM soffice.bin holds (its RSS: one process, so nothing is counted twice but
        the libraries it shares with the bridge); 0 once it is gone."""
        pid = self.pid
        status_file = f"/proc/{pid}/status"
        with contextlib.suppress(OSError, ValueError, IndexError), open(status_file, "rb") as status:
            for line in status:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    @property
    def alive(self) -> bool:
        started = all(p is not None and p.poll() is None for p in (self.office, self.bridge))
        return started and (self.worker is None or _running(self.worker))

    def responds(self) -> bool:
        """Whether soffice answers a ping within ``_PING_SECONDS``; one that does not is killed."""
        try:
            return bool(self._send({"op": "ping"}, _PING_SECONDS, None).get("ok"))
        except EngineError:
            return False

    def request(
        self, job: dict[str, Any], timeout: float | None, cancelled: threading.Event
    ) -> dict[str, Any]:
        """Send one job and wait for its answer; on timeout or cancel the process is killed. Its files
        pass through the exchange directory, emptied after each job."""
        self.conversions += 1
        try:
            return self.view.take(self._send(self.view.place(job), timeout, cancelled), job)
        finally:
            self.view.empty()

    def _send(
        self, job: dict[str, Any], timeout: float | None, cancelled: threading.Event | None
    ) -> dict[str, Any]:
        assert self.bridge is not None
        assert self.bridge.stdin is not None
        try:
            self.bridge.stdin.write(json.dumps(job).encode() + b"\n")
            self.bridge.stdin.flush()
        except OSError as exc:
            self.kill()
            raise EngineError("CONVERSION_FAILED", "LibreOffice stopped before the conversion began") from exc
        return self._read(timeout, cancelled)

    def _read(self, timeout: float | None, cancelled: threading.Event | None) -> dict[str, Any]:
        assert self.bridge is not None
        assert self.bridge.stdout is not None
        fd = self.bridge.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            if cancelled is not None and cancelled.is_set():
                self.kill()
                raise EngineError("CANCELLED", "the conversion was cancelled")
            if deadline is not None and time.monotonic() >= deadline:
                self.kill()
                raise EngineError(
                    "TIMEOUT", f"LibreOffice did not finish within {timeout:g} s and was stopped"
                )
            ready, _, _ = select.select([fd], [], [], _POLL_SECONDS)
            if not ready:
                if self.office is not None and self.office.poll() is not None:  # soffice ended
                    self.kill()
                    raise EngineError("CONVERSION_FAILED", "LibreOffice stopped during the conversion")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:  # the bridge ended: soffice crashed under it, or it did
                self.kill()
                raise EngineError("CONVERSION_FAILED", "LibreOffice stopped during the conversion")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        answer: dict[str, Any] = json.loads(line)
        if answer.get("code") == "OFFICE_GONE":
            self.kill()
        return answer

    def kill(self) -> None:
        """Stop both processes at once and throw the profile away."""
        _kill(self.bridge)
        if self.worker is not None and self.office is not None and self.office.poll() is None:
            # soffice.bin first, so its own parent (oosplash) reaps it and ends: no zombie is left
            # for a PID 1 that may never reap it (the service itself, in a container).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.worker, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.office.wait(_STOP_SECONDS)
        _kill(self.office)
        for process in (self.bridge, self.office):
            if process is not None:
                for stream in (process.stdin, process.stdout):
                    if stream is not None:
                        with contextlib.suppress(OSError):
                            stream.close()
        self.bridge = self.office = None
        for pipe in _pipe_files(self.root):
            with contextlib.suppress(OSError):
                pipe.unlink()
        self.held.remove()


class OfficePool:
    """Lends warm LibreOffice processes to conversions; see the module's docstring."""

    def __init__(
        self,
        soffice: str,
        python: str,
        *,
        max_conversions: int = 200,
        max_processes: int = 64,
        keep_warm: int = 1,
        idle_seconds: float = 60.0,
        memory_bound: int = DEFAULT_MEMORY_BOUND,
    ) -> None:
        self.soffice = soffice
        self.python = python
        self.max_conversions = max_conversions
        self.max_processes = max_processes
        self.keep_warm = keep_warm
        self.idle_seconds = idle_seconds
        self.memory_bound = memory_bound
        self._reaper: threading.Thread | None = None
        self._idle: list[OfficeProcess] = []
        self._busy = 0
        self._starting = 0  # processes being started in the background
        self._waiting = 0  # conversions waiting for a process
        self._failures: list[EngineError] = []  # starts that failed, for a waiting conversion to report
        self._lock = threading.Condition()
        self._closed = False
        self.started = 0  # processes started over the pool's life (replacements show here)
        _LIVE.add(self)
        sweep(_PREFIX, _pipe_files)  # what a service killed outright left behind

    @property
    def size(self) -> int:
        with self._lock:
            return len(self._idle) + self._busy

    def pids(self) -> list[int]:
        """The soffice process ids of the idle processes (for tests and measurements)."""
        with self._lock:
            return [pid for pid in (p.pid for p in self._idle) if pid is not None]

    def _take(self, cancelled: threading.Event) -> OfficeProcess:
        """An idle process for one conversion. With none idle, a process is started in the background
        for each conversion waiting beyond those already starting, and the conversion takes whichever
        comes first: one given back, or one started. A burst on a pool that shrank to one warm
        process is served by that process meanwhile, instead of each conversion waiting seconds for
        a cold LibreOffice of its own; the started ones stay for the next burst."""
        failure: EngineError | None = None
        with self._lock:
            self._waiting += 1
            try:
                while True:
                    if self._closed:
                        raise EngineError("ENGINE_NOT_STARTED", "the office pool is closed")
                    while self._idle:
                        process = self._idle.pop()
                        if process.alive:
                            self._busy += 1
                            return process
                        process.kill()  # died while idle
                    if self._failures:  # a start failed: this conversion stops asking for more
                        failure = self._failures.pop()
                    if failure is not None and self._busy + self._starting == 0:
                        raise failure  # nothing running could ever serve it
                    total = self._busy + self._starting
                    if failure is None and self._starting < self._waiting and total < self.max_processes:
                        self._starting += 1
                        threading.Thread(target=self._start_one, name="mcv-office-start", daemon=True).start()
                    if cancelled.is_set():
                        raise EngineError(
                            "CANCELLED", "the conversion was cancelled while waiting for LibreOffice"
                        )
                    self._lock.wait(_POLL_SECONDS)
            finally:
                self._waiting -= 1

    def _start_one(self) -> None:
        try:
            process: OfficeProcess | None = OfficeProcess(self.soffice, self.python)
        except EngineError as exc:
            process, failure = None, exc
        except Exception as exc:  # whatever it was, the conversions waiting must hear of it
            process, failure = None, EngineError("ENGINE_NOT_STARTED", f"LibreOffice did not start: {exc}")
        with self._lock:
            self._starting -= 1
            if process is None:
                self._failures.append(failure)
            elif self._closed:
                process.kill()
            else:
                self.started += 1
                process.last_used = time.monotonic()
                self._idle.append(process)
                if self._reaper is None:
                    self._reaper = threading.Thread(target=self._reap, name="mcv-office-idle", daemon=True)
                    self._reaper.start()
            self._lock.notify_all()

    def _give_back(self, process: OfficeProcess | None) -> None:
        retire = process is not None and (
            not process.alive
            or process.conversions >= self.max_conversions
            or self._closed
            or process.resident_memory() > self.memory_bound
        )
        if process is not None and retire:
            process.kill()
        with self._lock:
            self._busy -= 1
            if process is not None and not retire:
                process.last_used = time.monotonic()
                self._idle.append(process)  # the most recently used last: taken first, kept longest
            self._lock.notify_all()

    def convert(
        self, job: dict[str, Any], timeout: float | None, cancelled: threading.Event
    ) -> dict[str, Any]:
        """Run one job on a warm process; the answer is the bridge's (``ok``, ``files`` or ``code``)."""
        process = self._take(cancelled)
        while not process.responds():  # hung while idle: replace it
            process.kill()
            self._give_back(None)
            process = self._take(cancelled)
        try:
            return process.request(job, timeout, cancelled)
        finally:
            self._give_back(process)

    def _reap(self) -> None:
        """Stop the processes idle past ``idle_seconds`` beyond the ``keep_warm`` most recently used."""
        while True:
            with self._lock:
                self._lock.wait(min(self.idle_seconds, 5.0))
                if self._closed:
                    return
                cutoff = time.monotonic() - self.idle_seconds
                spare = self._idle[: max(0, len(self._idle) - self.keep_warm)]
                stale = [process for process in spare if process.last_used <= cutoff]
                self._idle = [process for process in self._idle if process not in stale]
            for process in stale:
                process.kill()

    def close(self) -> None:
        """Stop every idle process; busy ones stop when their conversion ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._lock.notify_all()
        for process in idle:
            process.kill()


@atexit.register
def _close_all() -> None:  # no soffice outlives the service
    for pool in list(_LIVE):
        pool.close()
