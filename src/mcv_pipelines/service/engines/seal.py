"""Sealing a program that converts files: no network, a read-only system, limits (issue 24).

A converter reads files a stranger uploaded; a crafted input can make it fetch a URL (an SVG's
``<image href>``, a playlist, a linked office image) or read a file it was not given. So every
program ``process.run_program`` starts runs inside a seal, chosen once per process:

- ``bwrap`` (bubblewrap): a new network namespace (loopback only, down), a view of the system
  read-only (system_view.py: /usr, the few files of /etc programs read, a passwd of its own; not
  /root, /home, the host's /tmp, the data directory or another task), a private /tmp, the task's
  inputs read-only and writable only its directories (its scratch and output directories); the
  program dies with the service.
- ``landlock``: where bubblewrap cannot start (missing, or refused its namespaces by a container's
  seccomp profile), Landlock and a seccomp filter set on the program itself (landlock/rules.py): the
  system read-only, only the task's files, no TCP, no socket but a Unix one.
- ``unshare``: only the network namespace (``unshare --net``), where neither of the above works.
- ``none``: nothing of the above (a machine with only Python); the embedded service still works, a
  served one refuses to start unless told ``--allow-engine-network`` (cli/serve.py).

Either way the child gets resource limits before it runs (memory, CPU seconds, file size, process
count). Under bubblewrap the service sets them itself (sealed_start.py): bwrap tells the sandbox's
pid on ``--info-fd`` and holds it on ``--block-fd`` until ``prlimit(2)`` has set them, so no program
runs for it (util-linux's ``prlimit`` inside the seal cost 3 of its 10 ms: bench/seal.py). Otherwise
``prlimit`` starts the program (2 ms). Python's ``preexec_fn`` would set them without a program, but
it makes subprocess fork the whole service instead of vfork-ing it: 28 ms per start with a 200 MB
heap. It stays the fallback where prlimit is missing.

What a task may write is a ``TaskScope``: the work layer opens one around an engine's run
(``task_scope``), so an engine that runs a program gets the seal without knowing about it.
``MCV_ENGINE_SEAL=bwrap|landlock|unshare|none`` forces a method (benchmarks, tests).

No program outlives the service (issue 37): util-linux ``setpriv --pdeathsig KILL`` (1-2 ms, against the
28 ms of a ``preexec_fn``), set after ``unshare`` made its namespace so that no change of credentials
clears it, and before bwrap (whose ``--die-with-parent`` sets it again). A signal set after the service
ended is never sent, so a service killed between the fork and setpriv would leave its program running
(bwrap then found its block descriptor closed and ran it, unlimited): ``death_argv`` makes a shell
check, once the signal is set, that its parent is still the service, and end otherwise. The signal
follows the thread that started the program, which waits in ``run_program`` until it ends.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import resource
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mcv_pipelines.service.engines import system_view
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.landlock import rules as landlock_rules

__all__ = [
    "BWRAP_BASE",
    "DEFAULT_LIMITS",
    "METHODS",
    "Limits",
    "Method",
    "TaskScope",
    "apply_limits",
    "bubblewrap_state",
    "bwrap_wrapper",
    "current_scope",
    "death_argv",
    "describe",
    "limit_argv",
    "limit_pairs",
    "limits_setter",
    "networked_argv",
    "seal_method",
    "sealed_argv",
    "task_scope",
]

Method = Literal["bwrap", "landlock", "unshare", "none"]
METHODS: tuple[Method, ...] = ("bwrap", "landlock", "unshare", "none")
FORCE_VARIABLE = "MCV_ENGINE_SEAL"
_GIB = 1024**3


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one sealed program; ``processes`` is on top of what the user runs already."""

    memory: int | None = 4 * _GIB  # address space, bytes; None for a program that reserves more than
    # it uses (Chromium's V8 cage takes tens of GiB of address space and dies under any such limit)
    cpu_seconds: int = 4 * 3600
    file_size: int = 32 * _GIB  # the largest file it may write
    processes: int = 256

    def text(self) -> str:
        memory = "unlimited" if self.memory is None else f"{self.memory / _GIB:g} GiB"
        return (
            f"memory {memory}, CPU {self.cpu_seconds / 3600:g} h, "
            f"files {self.file_size / _GIB:g} GiB, {self.processes} processes"
        )


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class TaskScope:
    """What a sealed program of one task sees: ``writable`` directories, ``readable`` files or
    directories inside a ``hidden`` one (its inputs), and ``hidden`` directories (the data directory)."""

    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()


_SCOPE: contextvars.ContextVar[TaskScope | None] = contextvars.ContextVar("mcv_task_scope", default=None)


@contextlib.contextmanager
def task_scope(scope: TaskScope) -> Iterator[None]:
    """Programs started in this block (this thread or context) get ``scope``."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def current_scope() -> TaskScope | None:
    return _SCOPE.get()


def _works(argv: Sequence[str]) -> bool:
    try:
        done = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
            env=program_environment(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def _bwrap_works() -> bool:
    bwrap = shutil.which("bwrap")
    true = shutil.which("true") or "/bin/true"
    return bwrap is not None and _works([bwrap, *system_view.view_args(), *_BWRAP_BASE, "--", true])


@functools.cache
def _probe() -> Method:
    if _bwrap_works():
        return "bwrap"
    if landlock_rules.available():
        return "landlock"
    if unshare_prefix():
        return "unshare"
    return "none"


@functools.cache
def unshare_prefix() -> tuple[str, ...]:
    """``unshare --net --`` where this process may make a network namespace, else nothing.

    As root that is a plain network namespace. Another user may not make one outright, but may inside
    a user namespace of its own where the kernel allows unprivileged ones (most do): there
    ``--map-current-user`` keeps the program's user id, so its files are still the service's (issue
    30: a service run as an ordinary user ran its programs with the network).
    """
    unshare = shutil.which("unshare")
    true = shutil.which("true") or "/bin/true"
    if unshare is None:
        return ()
    for prefix in ((unshare, "--net", "--"), (unshare, "--map-current-user", "--net", "--")):
        if _works([*prefix, true]):
            return prefix
    return ()


def seal_method() -> Method:
    """The seal this machine allows (probed once), or the one ``MCV_ENGINE_SEAL`` forces."""
    forced = os.environ.get(FORCE_VARIABLE, "").strip().lower()
    if forced in METHODS:
        return forced
    return _probe()


def describe(method: Method | None = None, limits: Limits = DEFAULT_LIMITS) -> str:
    """One line for the service's banner and log: which seal engines run under."""
    method = method or seal_method()
    what = {
        "bwrap": "bubblewrap (no network, a read-only view of the system, only the task's files)",
        "landlock": f"{landlock_rules.layers()}; {bubblewrap_state()}",
        "unshare": f"unshare (no network; {bubblewrap_state()}, so the file system is not narrowed)",
        "none": (
            "NOT sealed: neither bubblewrap, Landlock nor unshare works here, engine programs can reach "
            f"the network ({bubblewrap_state()})"
        ),
    }[method]
    return f"{what}; limits: {limits.text()}"


def bubblewrap_state() -> str:
    """Why bubblewrap does not seal here: missing, or installed but refused its namespaces."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is missing"
    if _bwrap_works():
        return f"bubblewrap works here but {FORCE_VARIABLE} chose another seal"
    return (
        "bubblewrap is installed but blocked here "
        "(no namespaces: a container's seccomp profile, a masked /proc?)"
    )


_DEVICES = ("null", "zero", "full", "random", "urandom")
_DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
              ("stderr", "/proc/self/fd/2"))  # fmt: skip

# --unshare-net: a namespace with only a loopback that is down. --unshare-pid: the program sees only
# its own processes, and they all die with it. --cap-drop ALL: root inside the seal
# cannot remount or raise its limits (bwrap keeps root's capabilities unless told). The file system
# is the system view (system_view.py) and the task's directories, put before these.
_BWRAP_BASE = (
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-pid",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    # A /dev of our own: bwrap's --dev (with a devpts) cost 5 of the seal's 12 ms (bench/seal.py).
    "--tmpfs",
    "/dev",
    *(item for name in _DEVICES for item in ("--dev-bind", f"/dev/{name}", f"/dev/{name}")),
    *(item for link, target in _DEV_LINKS for item in ("--symlink", target, f"/dev/{link}")),
    "--dir",
    "/dev/shm",  # noqa: S108 - on the seal's own /dev
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",  # noqa: S108 - a fresh, private /tmp inside the seal
)
BWRAP_BASE = _BWRAP_BASE  # for a warm process that builds its own view (office/office_view.py)


def limit_argv(limits: Limits) -> list[str] | None:
    """``prlimit`` with ``limits``, to go before a program's argv; None where prlimit is missing."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return None
    return [prlimit, *(f"--{name}={value}" for name, value in _limit_values(limits)), "--"]


def _limit_values(limits: Limits) -> list[tuple[str, int]]:
    values = [] if limits.memory is None else [("as", limits.memory)]
    values += [("cpu", limits.cpu_seconds), ("fsize", limits.file_size)]
    return [*values, ("nproc", _threads() + limits.processes)]


def sealed_argv(
    argv: Sequence[str],
    cwd: Path | None,
    method: Method,
    scope: TaskScope | None,
    writable: Sequence[Path] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> list[str]:
    """``argv`` wrapped in the seal ``method``.

    In a task's scope the system is read-only and only ``cwd``, ``writable`` and the scope's
    directories can be written. Outside one (version probes, an engine used as a library) the seal
    keeps the network away but leaves the file system as it is: there is no task to narrow it to.
    """
    if method == "landlock":  # set on the program itself, with its limits (sealed_start.py)
        return list(argv)
    program = argv[0]
    argv = [*(limit_argv(limits) or []), *argv]
    if method == "none":
        return [*death_argv(), *argv]
    if method == "unshare":
        prefix = unshare_prefix() or (shutil.which("unshare") or "/usr/bin/unshare", "--net", "--")
        return [*prefix, *death_argv(), *argv]
    return [*death_argv(), *bwrap_wrapper(cwd, scope, writable, program), "--", *argv]


# Run by sh once setpriv set the signal: $PPID is its parent then, $1 the service's pid.
_STILL_THE_SERVICES = '[ "$PPID" = "$1" ] || exit 125; shift; exec "$@"'


def death_argv() -> list[str]:
    """``setpriv --pdeathsig KILL`` and a shell that goes on only if its parent is still this process:
    the program gets SIGKILL when the service ends, or never starts if it ended first. Nothing where
    setpriv is missing (``SealedStart`` then sets the signal in ``preexec_fn``)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    # /bin/sh itself, not the first `sh` on PATH: a program of that name there is not ours to run
    return [
        setpriv,
        "--pdeathsig",
        "KILL",
        "--",
        "/bin/sh",
        "-c",
        _STILL_THE_SERVICES,
        "mcv-seal",
        str(os.getpid()),
    ]


def bwrap_wrapper(
    cwd: Path | None, scope: TaskScope | None, writable: Sequence[Path], program: str | None = None
) -> list[str]:
    """bwrap and its options for ``program`` run in ``cwd`` with ``scope`` (see ``sealed_argv``)."""
    bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
    if scope is None:
        namespaces = _BWRAP_BASE[: _BWRAP_BASE.index("--tmpfs")]
        wrapped = [bwrap, *namespaces, "--bind", "/", "/", *_BWRAP_BASE[len(namespaces) : -2]]
    else:
        extra = [*scope.writable, *writable, *([cwd] if cwd is not None else [])]
        wrapped = [bwrap, *_view(scope, [*scope.readable, *extra], program), *_BWRAP_BASE]
        wrapped += _hide(scope, program)
        for readable in scope.readable:
            if readable.exists():
                wrapped += ["--ro-bind", str(readable), str(readable)]
        for directory in dict.fromkeys(extra):
            directory.mkdir(parents=True, exist_ok=True)
            wrapped += ["--bind", str(directory), str(directory)]
    if cwd is not None:
        wrapped += ["--chdir", str(cwd)]
    return wrapped


def _trees(program: str | None) -> list[Path]:
    tree = system_view.program_tree(program) if program else None
    return [tree] if tree is not None else []


def _view(scope: TaskScope, task_paths: Sequence[Path], program: str | None) -> list[str]:
    return system_view.view_args([*scope.hidden, *task_paths], _trees(program))


def _hide(scope: TaskScope, program: str | None) -> list[str]:
    """A hidden directory is emptied where the view shows it at all (inside /usr, /etc or /var)."""
    trees = _trees(program)
    return [
        item
        for hidden in scope.hidden
        if system_view.in_view(hidden, trees)
        for item in ("--tmpfs", str(hidden))
    ]


def networked_argv(argv: Sequence[str], writable: Sequence[Path], method: Method) -> list[str]:
    """``argv`` for a program that needs the network (Chromium, whose every request is guarded
    instead): with bubblewrap it still sees only the system view read-only, a private /tmp (a
    compromised page cannot read the service's key or other tasks' files), and writes only
    ``writable``; otherwise it runs as it is."""
    if method != "bwrap":
        return list(argv)
    scope = current_scope() or TaskScope()
    # Its own PID namespace still (issue 37: it could read /proc/<service pid>): bwrap's init is its
    # PID 1, and every process of the browser ends with it.
    namespaces = ("--unshare-net", "--unshare-ipc")
    base = [option for option in _BWRAP_BASE if option not in namespaces]
    view = _view(scope, writable, argv[0])
    wrapped = [shutil.which("bwrap") or "/usr/bin/bwrap", *view, *base, *_hide(scope, argv[0])]
    for directory in writable:
        wrapped += ["--bind", str(directory), str(directory)]
    if writable:
        wrapped += ["--setenv", "HOME", str(writable[0])]
    return [*wrapped, "--", *argv]


class _ThreadCount:
    """How many threads this user runs, counted at most once a second. RLIMIT_NPROC counts every
    thread of the user, not only processes, so the limit is set above that count: the allowance is
    what a sealed program may add. (Counted as processes it was set below what a busy service's user
    runs, warm Chromium and LibreOffice having dozens of threads each: a program's first thread then
    failed, as pandoc's did under Landlock as an ordinary user. Root is not held to the limit.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._when = 0.0
        self._count = 0

    def __call__(self) -> int:
        with self._lock:
            if time.monotonic() - self._when > 1.0:
                self._count = _count_threads(os.getuid())
                self._when = time.monotonic()
            return self._count


def _count_threads(uid: int) -> int:
    """The threads of ``uid``'s processes (what RLIMIT_NPROC counts), each process's from its task/."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):  # gone meanwhile
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    count += len(os.listdir(f"{entry.path}/task"))
    return count


_threads = _ThreadCount()


def apply_limits(limits: Limits = DEFAULT_LIMITS) -> Callable[[], None] | None:
    """Where prlimit is missing, a function for Popen's ``preexec_fn`` that sets ``limits`` in the
    child before it runs; None where ``limit_argv`` does it.

    Everything it needs is computed here, in the parent: between fork and exec the child only makes
    the four setrlimit calls (no import, no allocation worth a lock).
    """
    if shutil.which("prlimit") is not None:
        return None
    return limits_setter(limits)


def limit_pairs(limits: Limits) -> list[tuple[int, tuple[int, int]]]:
    """``limits`` as setrlimit's (resource, (soft, hard)), none above this process's hard limits."""
    kinds = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
             "nproc": resource.RLIMIT_NPROC}  # fmt: skip
    pairs = []
    for name, value in _limit_values(limits):
        which = kinds[name]
        _, hard = resource.getrlimit(which)
        bounded = value if hard == resource.RLIM_INFINITY else min(value, hard)
        pairs.append((which, (bounded, bounded)))
    return pairs


def limits_setter(limits: Limits) -> Callable[[], None]:
    """A ``preexec_fn`` setting ``limits``."""
    pairs = limit_pairs(limits)
    setrlimit = resource.setrlimit

    def preexec() -> None:
        for which, pair in pairs:
            setrlimit(which, pair)

    return preexec
