"""The processes a test's service started, read from /proc: which of them run a program, and what
their status says of the seal (no new privileges, the seccomp filter, no capability). Shared by the
warm-engine tests under the landlock seal."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection
from pathlib import Path

__all__ = ["named", "seal_status"]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""  # the process ended meanwhile


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        children = parents.get(queue.pop(), [])
        found += children
        queue += children
    return found


def named(names: Collection[str], under: int | None = None) -> list[int]:
    """The processes whose name is one of ``names``: under ``under`` (this test process by default),
    or anywhere with ``under=0``."""
    if under == 0:
        pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    else:
        pids = _descendants(os.getpid() if under is None else under)
    return [pid for pid in pids if _read(Path(f"/proc/{pid}/comm")).strip() in names]


def seal_status(pid: int, fields: Collection[str]) -> dict[str, str]:
    """``fields`` of the process's /proc status (``NoNewPrivs``, ``Seccomp``, ``CapEff``)."""
    lines = _read(Path(f"/proc/{pid}/status")).splitlines()
    status = dict(line.split(":", 1) for line in lines if ":" in line)
    return {name: status.get(name, "").strip() for name in fields}
