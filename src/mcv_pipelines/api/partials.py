"""Partial downloads: ``.NAME.<pid>-<random>.part`` beside the target, renamed over it when whole.

A process killed mid-download (SIGKILL, a lost machine) cannot remove its part, so the next download
of the same target does (issue 14: a resumed batch left ``.p026-t.png.6c519865.part`` for good). A part
names the process writing it; a running process's part is left alone.
"""

from __future__ import annotations

import os
import re
import secrets
from glob import escape as glob_escape
from pathlib import Path

__all__ = ["part_path", "remove_stale_parts"]


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
    pattern = re.compile(rf"\.{re.escape(dest.name)}\.(?:(\d+)-)?[0-9a-f]{{8}}\.part")
    try:
        candidates = list(dest.parent.glob(f".{glob_escape(dest.name)}.*.part"))
    except OSError:
        return
    for candidate in candidates:
        match = pattern.fullmatch(candidate.name)
        if match is None:
            continue
        pid = int(match.group(1)) if match.group(1) else None
        if pid is not None and _alive(pid):
            continue
        try:
            candidate.unlink(missing_ok=True)
        except OSError:
            continue
