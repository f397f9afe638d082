"""Directories of warm engine processes (profiles, sockets) that go when their service goes.

A warm LibreOffice or Chromium keeps a profile directory in the temporary directory, removed when
the process is stopped. A service killed outright (SIGKILL, a crash) removes nothing, so each such
directory is held by its service: an ``flock`` on a file inside it, which the kernel lets go when the
service ends however it ends. The next start of an engine ``sweep``s the directories of its kind
that nobody holds (issue 37). A directory is made under a passing name and renamed once held, so a
sweep never sees one that is being made.

Example::

    held = HeldDirectory.make("mcv-office-")
    ...
    held.remove()
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["HeldDirectory", "sweep"]

_HOLD = ".held"


class HeldDirectory:
    """A fresh directory in the temporary directory, held by this process until ``remove``."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def make(cls, prefix: str) -> HeldDirectory:
        making = Path(tempfile.mkdtemp(prefix=f".making-{prefix}"))
        fd = os.open(making / _HOLD, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        path = making.with_name(making.name.removeprefix(".making-"))
        making.rename(path)
        return cls(path, fd)

    def remove(self) -> None:
        """Remove the directory, then let it go (in that order: a sweep never races the removal)."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def sweep(prefix: str, also: Callable[[Path], Iterable[Path]] = lambda path: ()) -> list[Path]:
    """Remove the directories named ``prefix*`` that no process holds, and the files or directories
    ``also`` names for each (a socket named after it); returns the directories removed."""
    removed = []
    for path in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            fd = os.open(path / _HOLD, os.O_RDWR | os.O_CLOEXEC)
        except OSError:  # not ours, or not a directory
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its service still runs
            os.close(fd)
            continue
        for extra in also(path):
            _remove(extra)
        shutil.rmtree(path, ignore_errors=True)
        os.close(fd)
        removed.append(path)
    return removed


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
