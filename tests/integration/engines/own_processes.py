"""The processes a test's service started, read from /proc: which of them run a program, and what
their status says of the seal (no new privileges, the seccomp filter, no capability). Shared by the
warm-engine tests under the landlock seal."""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from mcv_pipelines.service.engines.proc_tree import descendants, name

__all__ = ["named", "seal_status"]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""  # the process ended meanwhile


def named(names: Collection[str], under: int | None = None) -> list[int]:
    """The processes whose name is one of ``names``: under ``under`` (this test process by default),
    or anywhere with ``under=0``."""
    if under == 0:
        pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    else:
        pids = descendants(os.getpid() if under is None else under)
    return [pid for pid in pids if name(pid) in names]


def seal_status(pid: int, fields: Collection[str]) -> dict[str, str]:
    """``fields`` of the process's /proc status (``NoNewPrivs``, ``Seccomp``, ``CapEff``)."""
    lines = _read(Path(f"/proc/{pid}/status")).splitlines()
    status = dict(line.split(":", 1) for line in lines if ":" in line)
    return {name: status.get(name, "").strip() for name in fields}
