"""Partial downloads: ``.NAME.<pid>-<random>.part`` beside the target, renamed over it when whole.

A process killed mid-download (SIGKILL, a lost machine) cannot remove its part, so the next download
of the same target does (issue 14: a resumed batch left ``.p026-t.png.6c519865.part`` for good). A part
names the process writing it; a running process's part is left alone. A directory is read once for
all the downloads into it (again after 30 s), not once per download.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

__all__ = ["part_path", "remove_stale_parts"]

# What follows ``.NAME.`` in a part's name, before ``.part``: ``<pid>-<8 hex>`` (or 8 hex from before
# parts named their process).
_PART_TAIL = re.compile(r"(?:(\d+)-)?[0-9a-f]{8}")
_Part = tuple[str, int | None]  # a part file's name, and the pid it names (None: from before pids)
_RESCAN = 30.0  # seconds a directory's scan is used before it is read again
_KEEP = 256  # directories whose scan is kept


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
    for name, pid in _SCANS.parts_of(dest):
        if pid is not None and _alive(pid):
            continue
        try:
            (dest.parent / name).unlink(missing_ok=True)
        except OSError:
            continue


class _DirectoryScans:
    """Each directory's part files, read once and kept a while: a batch downloads thousands of files
    into one directory, and reading it for each download made the batch quadratic in its rows (a
    quarter of a millisecond per download at 400 files, growing with every file; issue 15).

    A directory is read again after ``_RESCAN`` seconds, so a part that a process killed meanwhile
    left is still found by a later download of its file; and at most ``_KEEP`` directories are kept.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scans: OrderedDict[str, tuple[float, dict[str, list[_Part]]]] = OrderedDict()

    def parts_of(self, dest: Path) -> list[_Part]:
        """The part files beside ``dest`` (of any process) with the pid each names, each handed out
        once per scan."""
        directory = str(dest.parent)
        with self._lock:
            found = self._scans.get(directory)
            if found is None or time.monotonic() - found[0] > _RESCAN:
                found = (time.monotonic(), _scan(dest.parent))
                self._scans[directory] = found
                if len(self._scans) > _KEEP:
                    self._scans.popitem(last=False)
            self._scans.move_to_end(directory)
            return found[1].pop(dest.name, [])


def _scan(directory: Path) -> dict[str, list[_Part]]:
    """``.NAME.<tail>.part`` files of ``directory`` by NAME (a tail as ``part_path`` writes it)."""
    parts: dict[str, list[_Part]] = {}
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if not (name.startswith(".") and name.endswith(".part")):
                    continue
                target, _, tail = name[1 : -len(".part")].rpartition(".")
                match = _PART_TAIL.fullmatch(tail)
                if target and match is not None:
                    pid = int(match.group(1)) if match.group(1) else None
                    parts.setdefault(target, []).append((name, pid))
    except OSError:
        pass
    return parts


_SCANS = _DirectoryScans()
