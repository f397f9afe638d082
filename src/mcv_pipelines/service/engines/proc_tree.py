"""The processes under a process, read from /proc (Linux): what the office pool measures and kills,
and what the engine tests check of the processes a service started."""

from __future__ import annotations

import contextlib
from pathlib import Path

__all__ = ["descendants", "name"]


def descendants(pid: int) -> list[int]:
    """Every process under ``pid``, generation by generation, each generation in pid order."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):  # one that ended meanwhile
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        children = sorted(parents.get(queue.pop(0), []))
        found += children
        queue += children
    return found


def name(pid: int) -> str:
    """The process's name (its ``comm``), or "" once it has ended."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
