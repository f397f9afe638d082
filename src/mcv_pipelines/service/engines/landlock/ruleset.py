"""Landlock through ctypes: a process narrows what it may open, for itself and what it starts (issue 37).

Landlock needs no namespace, no mount and no privilege, so it works where bubblewrap cannot start (a
container runtime's default seccomp profile, Kubernetes with /proc masked). A ruleset names the rights
it *handles*; each rule allows some of them beneath one directory (or on one file); a handled right
no rule allows is refused. Restricting is for good: the process and its children keep the ruleset.

Each kernel knows the rights of its ABI (``abi()``: 1 on Linux 5.13 ... 7 on 6.15): a ruleset asks
only for those, so an older kernel seals less rather than failing (the file system from ABI 1, the
cross-directory rename from 2, truncate from 3, TCP bind/connect from 4, device ioctls from 5,
abstract Unix sockets and signals scoped to the sandbox from 6).

Example (between fork and exec, everything prepared before)::

    ruleset = Ruleset(read=("/usr",), write=(str(work),), net=True)
    restrict = ruleset.restrictor()   # in the parent
    restrict()                        # in the child: from here on only /usr and work are reachable
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["MAKE_SOCK", "READ", "READ_DIR_ONLY", "WRITE", "Builder", "Ruleset", "abi"]

# Syscall numbers: the generic table's, shared by x86_64 and aarch64.
_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# File system rights (the bit, the ABI that brought it).
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
# remove dir and file, make char, dir, regular file, socket, fifo, block device, symlink
_MAKE_AND_REMOVE = sum(1 << bit for bit in range(4, 13))
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
MAKE_SOCK = 1 << 9  # a Unix socket's file, and nothing else (a warm LibreOffice's pipes in /tmp)
_FS_BY_ABI = {
    1: EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | _MAKE_AND_REMOVE,
    2: REFER,
    3: TRUNCATE,
    5: IOCTL_DEV,
}
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # what a rule on a file may allow
_NET_TCP = 0b11  # bind, connect (ABI 4)
_SCOPES = 0b11  # abstract Unix sockets, signals (ABI 6)

READ = EXECUTE | READ_FILE | READ_DIR
READ_DIR_ONLY = READ_FILE | READ_DIR  # an input: read, never run
WRITE = (1 << 16) - 1  # everything on the file system, in the directory given


@functools.cache
def abi() -> int:
    """The Landlock ABI this kernel offers; 0 where it offers none (disabled, too old, a foreign arch)."""
    numbers = _SYSCALLS.get(platform.machine())
    if numbers is None:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(numbers[0], None, 0, _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def _handled_fs(version: int) -> int:
    return sum(bits for since, bits in _FS_BY_ABI.items() if version >= since)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class Builder:
    """Landlock's three calls with everything allocated up front, so they can run between fork and
    exec: ``create()`` a ruleset, ``add()`` rules to it (ahead of time, for the system's trees),
    ``restrict(ruleset)`` the calling process to it. ``files`` False leaves the file system unhandled
    (a program outside a task: only the network is taken away); ``net`` refuses every TCP bind and
    connect."""

    def __init__(self, files: bool = True, net: bool = True, version: int | None = None) -> None:
        version = abi() if version is None else version
        if version < 1:
            raise OSError(errno.EOPNOTSUPP, "Landlock is not available on this kernel")
        self.handled = _handled_fs(version) if files else 0
        self._attr = _RulesetAttr(self.handled, _NET_TCP if net and version >= 4 else 0,
                                  _SCOPES if version >= 6 else 0)  # fmt: skip
        self._size = ctypes.sizeof(_RulesetAttr) if version >= 6 else 16 if version >= 4 else 8
        self._calls = _SYSCALLS[platform.machine()]
        libc = ctypes.CDLL(None, use_errno=True)
        self._syscall, self._prctl = libc.syscall, libc.prctl
        self._beneath = _PathBeneath()

    def _fail(self, what: str) -> None:
        raise OSError(ctypes.get_errno(), f"landlock: {what}")

    def create(self) -> int:
        ruleset = int(self._syscall(self._calls[0], ctypes.byref(self._attr), ctypes.c_size_t(self._size), 0))
        if ruleset < 0:
            self._fail("create_ruleset")
        return ruleset

    def add(self, ruleset: int, rules: Sequence[tuple[str, int]]) -> None:
        """Allow ``rules`` (path, rights); a path this machine lacks allows nothing."""
        if not self.handled:
            return
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                directory = stat.S_ISDIR(os.fstat(fd).st_mode)
                allowed = rights & self.handled
                self._beneath.allowed = allowed if directory else allowed & _FILE_RIGHTS
                self._beneath.parent_fd = fd
                rule = ctypes.byref(self._beneath)
                if self._beneath.allowed and self._syscall(
                    self._calls[1], ruleset, _RULE_PATH_BENEATH, rule, 0
                ):
                    self._fail(f"add_rule {path}")
            finally:
                os.close(fd)

    def restrict(self, ruleset: int) -> None:
        """Restrict this process to ``ruleset`` for good (and close it)."""
        try:
            if self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                self._fail("no_new_privs")
            if self._syscall(self._calls[2], ruleset, 0) != 0:
                self._fail("restrict_self")
        finally:
            os.close(ruleset)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """What a restricted process may reach: ``rules`` as (path, rights); ``files`` and ``net`` as for
    ``Builder``."""

    rules: tuple[tuple[str, int], ...] = ()
    files: bool = True
    net: bool = True

    def restrictor(self, version: int | None = None) -> Callable[[], None]:
        """A function that restricts the calling process (a ``preexec_fn``); all allocation here."""
        builder = Builder(self.files, self.net, version)
        rules = self.rules

        def apply() -> None:
            ruleset = builder.create()
            try:
                builder.add(ruleset, rules)
            except OSError:
                os.close(ruleset)
                raise
            builder.restrict(ruleset)

        return apply
