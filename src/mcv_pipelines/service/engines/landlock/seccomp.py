"""A seccomp filter that keeps a sealed program off every network (issue 37), built by hand.

Landlock (landlock.py) refuses TCP bind and connect, but not UDP, raw or netlink sockets, and not a
connect to a Unix socket by its path (a host's Docker or database socket). This filter, installed in
the program before it runs, refuses them with EPERM (the program sees an error, it is not killed):

- ``socket`` and ``socketpair`` for any family but AF_UNIX, and for AF_UNIX any type but a stream or
  a sequenced packet one (a datagram socket can send to any path without connecting);
- ``connect`` (the only sockets left are Unix ones, and a program has no one to connect to: the pairs
  it makes are connected already);
- ``io_uring_*`` (a ring can open and connect sockets without the calls above);
- every call of another architecture's table (i386 on x86_64 has ``socketcall``) and, on x86_64, of
  the x32 table.

Everything else is allowed. The program is classic BPF over ``struct seccomp_data``; ``verdict`` runs
it on a given call (the tests read their own filter back). Where the machine's architecture is not one
known here, ``filter_program`` returns None and nothing is installed: a filter with the wrong numbers
would refuse the wrong calls.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from dataclasses import dataclass

__all__ = ["ARCHES", "Arch", "Installer", "assemble", "filter_program", "install", "verdict"]

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (little endian)
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_DENY = _RET_ERRNO | errno.EPERM
_AF_UNIX, _SOCK_STREAM, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 1, 5, 0xF
_X32_BIT = 0x40000000

# classic BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_AND_K = 0x54
_RET_K = 0x06


@dataclass(frozen=True, slots=True)
class Arch:
    audit: int  # AUDIT_ARCH_*
    socket: int
    socketpair: int
    connect: int
    io_uring: tuple[int, int, int]  # setup, enter, register
    x32: bool  # the x32 table shares the audit arch: refuse numbers with the x32 bit


ARCHES = {
    "x86_64": Arch(0xC000003E, socket=41, socketpair=53, connect=42, io_uring=(425, 426, 427), x32=True),
    "aarch64": Arch(0xC00000B7, socket=198, socketpair=199, connect=203, io_uring=(425, 426, 427), x32=False),
}


def assemble(lines: list[tuple[int, int, str | int, str | int] | str]) -> bytes:
    """``(code, k, jump if true, jump if false)`` rows and ``"label"`` rows to sock_filter bytes;
    a jump is a label or 0 (the next row)."""
    where: dict[str, int] = {}
    rows: list[tuple[int, int, str | int, str | int]] = []
    for line in lines:
        if isinstance(line, str):
            where[line] = len(rows)
        else:
            rows.append(line)
    out = b""
    for index, (code, k, true, false) in enumerate(rows):
        jumps = [where[j] - index - 1 if isinstance(j, str) else j for j in (true, false)]
        out += struct.pack("<HBBI", code, jumps[0], jumps[1], k)
    return out


def filter_program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (this one by default), or None on an architecture not known here."""
    arch = ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    refused = (arch.connect, *arch.io_uring)
    lines: list[tuple[int, int, str | int, str | int] | str] = [
        (_LD_W_ABS, _ARCH, 0, 0),
        (_JEQ_K, arch.audit, 0, "deny"),
        (_LD_W_ABS, _NR, 0, 0),
    ]
    if arch.x32:
        lines.append((_JGE_K, _X32_BIT, "deny", 0))
    lines += [(_JEQ_K, arch.socket, "socket", 0), (_JEQ_K, arch.socketpair, "socket", 0)]
    lines += [(_JEQ_K, number, "deny", 0) for number in refused]
    lines += [
        (_RET_K, _RET_ALLOW, 0, 0),
        "socket",
        (_LD_W_ABS, _ARG0, 0, 0),  # the family (an int: the low half of args[0])
        (_JEQ_K, _AF_UNIX, 0, "deny"),
        (_LD_W_ABS, _ARG1, 0, 0),  # the type, with SOCK_NONBLOCK and SOCK_CLOEXEC
        (_AND_K, _SOCK_TYPE_MASK, 0, 0),
        (_JEQ_K, _SOCK_STREAM, "allow", 0),
        (_JEQ_K, _SOCK_SEQPACKET, "allow", 0),
        "deny",
        (_RET_K, _DENY, 0, 0),
        "allow",
        (_RET_K, _RET_ALLOW, 0, 0),
    ]
    return assemble(lines)


def verdict(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """What ``program`` answers for a call: a SECCOMP_RET_* value (with its errno)."""
    words = [*args, 0, 0, 0, 0, 0, 0][:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *words)
    accumulator, pc = 0, 0
    while True:
        code, true, false, k = struct.unpack_from("<HBBI", program, pc * 8)
        pc += 1
        if code == _LD_W_ABS:
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif code == _AND_K:
            accumulator &= k
        elif code in (_JEQ_K, _JGE_K):
            hit = accumulator == k if code == _JEQ_K else accumulator >= k
            pc += true if hit else false
        elif code == _RET_K:
            return int(k)
        else:
            raise ValueError(f"opcode {code:#x} is not one this filter uses")


_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Installer:
    """``program`` ready to install in a child between fork and exec: everything allocated here."""

    def __init__(self, program: bytes) -> None:
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // 8, ctypes.addressof(self._buffer))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def __call__(self) -> None:
        if self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def install(program: bytes) -> None:
    """Install ``program`` in this process (and everything it starts from now on), for good."""
    Installer(program)()
