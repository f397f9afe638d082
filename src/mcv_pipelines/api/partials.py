"""Partial downloads: ``.NAME.<pid>-<random>.part`` beside the target, renamed over it when whole.

A process killed mid-download (SIGKILL, a lost machine) cannot remove its part, so the next download
of the same target does (issue 14: a resumed batch left ``.p026-t.png.6c519865.part`` for good). A part
names the process writing it; a running process's part is left alone.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

__all__ = ["part_path", "remove_stale_parts"]

# What follows ``.NAME.`` in a part's name, before ``.part``: ``<pid>-<8 hex>`` (or 8 hex from before
# parts named their process).
_PART_TAIL = re.compile(r"(?:(\d+)-)?[0-9a-f]{8}")


def part_path(dest: Path) -> Path:
    """Where this process writes ``dest`` until it is whole."""
    return dest.with_name(f".{dest.name}.{os.getpid()}-{secrets.token_hex(4)}.part")


def _alive(pid: int) -> bool:
    if os.name == "nt":
        # os.kill(pid, 0) would terminate the process there; and a file another process has open
        # cannot be removed on Windows, so trying the removal is the check.
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else
        return True
    return True


def remove_stale_parts(dest: Path) -> None:
    """Remove the partial files an earlier, killed download of ``dest`` left beside it (issue 14: a
    batch SIGKILLed mid-download left ``.p026-t.png.6c519865.part`` for good). A part names the process
    that writes it; one of a process still running is left alone."""
    # One directory read and plain prefix checks: a glob plus a regex compiled for each target (never
    # cached: every name differs) cost ~5% of a batch of small files (issue 15).
    prefix = f".{dest.name}."
    try:
        with os.scandir(dest.parent) as entries:
            candidates = [e.name for e in entries if e.name.startswith(prefix) and e.name.endswith(".part")]
    except OSError:
        return
    for name in candidates:
        match = _PART_TAIL.fullmatch(name, len(prefix), len(name) - len(".part"))
        if match is None:
            continue
        pid = int(match.group(1)) if match.group(1) else None
        if pid is not None and _alive(pid):
            continue
        try:
            (dest.parent / name).unlink(missing_ok=True)
        except OSError:
            continue
