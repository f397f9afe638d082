"""Dropping every capability of a sealed program that would run as root (issue 37), through ctypes.

Run as root (CI, many containers), a program keeps root's capabilities across exec, and with them
CAP_SYS_PTRACE, which lets it past Landlock's guard of other processes: it read the service's
``/proc/<pid>/environ`` under the landlock seal. bubblewrap drops them (``--cap-drop ALL``); the
landlock seal does it here: the bounding set emptied (exec then grants root none), the ambient and
inheritable sets cleared. For a program of another user this changes nothing (it has none to drop).
"""

from __future__ import annotations

import ctypes
import errno
from collections.abc import Callable

__all__ = ["dropper"]

_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LAST_CAP = 63  # above the kernel's last capability PR_CAPBSET_DROP answers EINVAL
_CAPABILITY_V3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def dropper() -> Callable[[], None]:
    """A function that drops every capability of the calling process's next exec (a ``preexec_fn``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl, capget, capset = libc.prctl, libc.capget, libc.capset
    header, data = _Header(_CAPABILITY_V3, 0), (_Data * 2)()

    def drop() -> None:
        for capability in range(_LAST_CAP + 1):
            if prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EPERM:
                break  # not ours to drop: a process without CAP_SETPCAP has no capability to lose
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if capget(ctypes.byref(header), data) == 0:
            data[0].inheritable = data[1].inheritable = 0
            capset(ctypes.byref(header), data)

    return drop
