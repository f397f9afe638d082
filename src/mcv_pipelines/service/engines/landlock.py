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
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["READ", "READ_DIR_ONLY", "WRITE", "Ruleset", "abi"]

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


@dataclass(frozen=True, slots=True)
class Ruleset:
    """What a restricted process may reach: ``rules`` as (path, rights); ``files`` False leaves the file
    system unhandled (a program outside a task: only the network is taken away); ``net`` refuses every
    TCP bind and connect."""

    rules: tuple[tuple[str, int], ...] = ()
    files: bool = True
    net: bool = True

    def restrictor(self, version: int | None = None) -> Callable[[], None]:
        """A function that restricts the calling process (a ``preexec_fn``); all allocation here."""
        version = abi() if version is None else version
        if version < 1:
            raise OSError(errno.EOPNOTSUPP, "Landlock is not available on this kernel")
        handled = _handled_fs(version) if self.files else 0
        attr = _RulesetAttr(handled, _NET_TCP if self.net and version >= 4 else 0,
                            _SCOPES if version >= 6 else 0)  # fmt: skip
        size = ctypes.sizeof(_RulesetAttr) if version >= 6 else 16 if version >= 4 else 8
        create, add, restrict = _SYSCALLS[platform.machine()]
        libc = ctypes.CDLL(None, use_errno=True)
        syscall, prctl = libc.syscall, libc.prctl
        rules = [(path, rights & handled) for path, rights in self.rules] if self.files else []
        beneath = _PathBeneath()
        flags = os.O_PATH | os.O_CLOEXEC

        def fail(what: str) -> None:
            raise OSError(ctypes.get_errno(), f"landlock: {what}")

        def apply() -> None:
            ruleset = syscall(create, ctypes.byref(attr), ctypes.c_size_t(size), 0)
            if ruleset < 0:
                fail("create_ruleset")
            try:
                for path, rights in rules:
                    try:
                        fd = os.open(path, flags)
                    except OSError:
                        continue  # a tree this machine lacks: nothing to allow
                    try:
                        directory = stat.S_ISDIR(os.fstat(fd).st_mode)
                        beneath.allowed = rights if directory else rights & _FILE_RIGHTS
                        beneath.parent_fd = fd
                        rule = ctypes.byref(beneath)
                        if beneath.allowed and syscall(add, ruleset, _RULE_PATH_BENEATH, rule, 0):
                            fail(f"add_rule {path}")
                    finally:
                        os.close(fd)
                if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                    fail("no_new_privs")
                if syscall(restrict, ruleset, 0) != 0:
                    fail("restrict_self")
            finally:
                os.close(ruleset)

        return apply
