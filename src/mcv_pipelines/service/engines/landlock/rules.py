"""The ``landlock`` seal: Landlock and seccomp on each program, where namespaces are refused (issue 37).

Inside a container with the runtime's default seccomp profile, or in Kubernetes with /proc masked,
bubblewrap cannot make its namespaces; Landlock (ruleset.py) and a seccomp filter (seccomp.py) need
none. Each program gets, before it runs:

- its resource limits (seal.py's ``Limits``);
- a Landlock ruleset: the system's trees read-only (/usr and what links into it, /etc but its secrets,
  /proc, a few of /sys and /var, the Python that runs the service and the program's own tree where it
  lives elsewhere), /dev/null and its kin, the task's inputs readable and its directories writable.
  Not /root, /home, /tmp, the data directory, another task. TCP bind and connect are refused.
- no capability, even run as root (privileges.py): CAP_SYS_PTRACE would let it read the service's
  /proc/<pid>/environ past Landlock;
- the seccomp filter: no socket but a Unix stream or packet one, no connect.

Outside a task's scope (version probes) the file system is left as it is, as bubblewrap does there; the
network is taken away all the same. Landlock cannot hide a directory it lets through, so /tmp, which
programs expect to write, is replaced by the task's own (``TMPDIR``).

``prepare`` does the work in the service: the rules, the filter, the ctypes objects. What it returns
runs between fork and exec (Popen's ``preexec_fn``): no import, a few syscalls per rule.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from mcv_pipelines.service.engines.landlock import privileges, ruleset, seccomp

__all__ = [
    "available",
    "files_only",
    "layers",
    "prepare",
    "rules_for",
    "system_rules",
    "task_environment",
    "task_rules",
]

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_READ_ONLY = (
    "/proc",  # Landlock keeps a sealed program from another's /proc/<pid>/environ, mem and the like
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/var/cache/fontconfig",
    "/var/lib/ghostscript",
    "/var/lib/texmf",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
)
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# What of /etc no converter needs and a hostile file must not read: passwords, keys, the sudo rules,
# the machine's users (issue 37: Calibre embedded /etc/passwd from a linked picture; a program that
# looks its user up finds none and uses HOME).
_ETC_SECRETS = frozenset({
    "shadow", "shadow-", "gshadow", "gshadow-", "passwd", "passwd-", "group", "group-", "subuid",
    "subgid", "ssh", "ssl", "sudoers", "sudoers.d", "security", "credstore", "credstore.encrypted",
    "krb5.keytab", "wireguard", "mcv", "machine-id", "pam.d",
})  # fmt: skip


@functools.cache
def _etc() -> tuple[str, ...]:
    try:
        names = sorted(os.listdir("/etc"))
    except OSError:
        return ()
    return tuple(f"/etc/{name}" for name in names if name not in _ETC_SECRETS)


def _program_tree(program: str) -> str | None:
    """Where ``program`` lives, when that is not a system tree: its directory, or the one above a bin/."""
    path = Path(os.path.realpath(program))
    if any(path.is_relative_to(tree) for tree in _SYSTEM):
        return None
    parent = path.parent
    return str(parent.parent if parent.name == "bin" else parent)


@functools.cache
def system_rules() -> tuple[tuple[str, int], ...]:
    """The rules every sealed program gets: the system's trees, its devices."""
    system = [*_SYSTEM, *_etc(), sys.base_prefix, sys.prefix]
    rules = [(path, ruleset.READ) for path in system]
    rules += [(path, ruleset.READ_DIR_ONLY) for path in _READ_ONLY]
    devices = ruleset.READ_FILE | ruleset.WRITE_FILE | ruleset.IOCTL_DEV | ruleset.TRUNCATE
    return (*rules, *((path, devices) for path in _DEVICES))


def task_rules(
    argv: Sequence[str], readable: Sequence[Path], writable: Sequence[Path]
) -> tuple[tuple[str, int], ...]:
    """The rules of one program: its own tree, its task's ``readable`` inputs, ``writable`` directories."""
    own = _program_tree(argv[0]) if argv else None
    rules = [(own, ruleset.READ)] if own else []
    rules += [(str(path), ruleset.READ_DIR_ONLY) for path in readable]
    return (*rules, *((str(path), ruleset.WRITE) for path in writable))


def rules_for(
    argv: Sequence[str], readable: Sequence[Path], writable: Sequence[Path]
) -> tuple[tuple[str, int], ...]:
    """All the Landlock rules of a program run as ``argv`` with a task's ``readable`` inputs and
    ``writable`` directories."""
    return (*system_rules(), *task_rules(argv, readable, writable))


@functools.cache
def _filter() -> seccomp.Installer | None:
    program = seccomp.filter_program()
    return None if program is None else seccomp.Installer(program)


def prepare(
    argv: Sequence[str],
    readable: Sequence[Path] | None,
    writable: Sequence[Path],
    limits: Callable[[], None] | None = None,
    extra: Sequence[tuple[str, int]] = (),
    drop_capabilities: bool = True,
) -> Callable[[], None]:
    """A ``preexec_fn`` that sets ``limits``, then seals with Landlock and seccomp. ``readable`` None:
    no task, the file system is left as it is. ``extra`` rules on top (a warm process's own needs);
    ``drop_capabilities`` False for a program that needs them to make namespaces and drops them itself
    before what it runs (office_view.py). OSError where this machine cannot seal so."""
    installer = _filter()
    if installer is None:
        raise OSError("seccomp: no filter for this architecture")
    if readable is None:
        confine = ruleset.Ruleset(files=False)
    else:
        confine = ruleset.Ruleset((*rules_for(argv, readable, writable), *extra))
    restrict, drop = confine.restrictor(), privileges.dropper()

    def preexec() -> None:
        if limits is not None:
            limits()
        restrict()
        if drop_capabilities:
            drop()
        installer()

    return preexec


def files_only(
    program: str,
    writable: Sequence[Path],
    readable: Sequence[Path] = (),
    extra: Sequence[tuple[str, int]] = (),
) -> Callable[[], None]:
    """A ``preexec_fn`` for a warm ``program`` that needs sockets (Chromium: every request it makes is
    guarded and goes through a pinning proxy on a loopback port each task picks; the UNO bridge:
    soffice's pipe): Landlock on the file system only (the system read-only, ``readable`` too,
    ``writable`` its own, ``extra`` rules) and no capability; neither the seccomp filter nor Landlock's
    TCP rules, which would cut it off."""
    confine = ruleset.Ruleset((*rules_for([program], readable, writable), *extra), net=False)
    restrict, drop = confine.restrictor(), privileges.dropper()

    def preexec() -> None:
        restrict()
        drop()

    return preexec


def task_environment(env: dict[str, str] | None, writable: Sequence[Path]) -> dict[str, str] | None:
    """``env`` (None: the service's) with ``TMPDIR`` in the task's first writable directory unless it
    names one already: the machine's /tmp is out of a sealed program's reach."""
    if not writable:
        return env
    base = dict(os.environ if env is None else env)
    base.setdefault("TMPDIR", str(writable[0]))
    return base


@functools.cache
def available() -> bool:
    """Whether both layers can be set here: Landlock answers and a sealed ``true`` runs."""
    if ruleset.abi() < 1 or _filter() is None:
        return False
    true = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"
    try:
        preexec = prepare([true], (), ())
        done = subprocess.run([true], preexec_fn=preexec, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def layers() -> str:
    """The layers the ``landlock`` seal sets here, for the banner."""
    version = ruleset.abi()
    reach = "TCP refused" if version >= 4 else "TCP not covered before ABI 4"
    return (
        f"Landlock ABI {version} (system read-only, only the task's files; {reach}) "
        "+ seccomp (no socket but a Unix stream one)"
    )
