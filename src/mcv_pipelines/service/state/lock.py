"""One serving process per data directory.

The scheduler's startup recovery puts tasks left ``processing`` back to ``waiting``: right after a
crash, wrong while another live process is running them. So a process serving a data directory holds
an exclusive lock on ``<data_dir>/service.lock`` (flock: released by the kernel when the process dies,
so a crash never leaves a stale lock).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

__all__ = ["DataDirBusy", "DataDirLock"]


class DataDirBusy(RuntimeError):
    """Another live process serves this data directory."""

    def __init__(self, data_dir: Path, holder: str) -> None:
        self.data_dir = data_dir
        self.holder = holder
        super().__init__(f"{data_dir} is in use by another mcv process ({holder})")


class DataDirLock:
    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / "service.lock"
        self._fd: int | None = None

    def acquire(self) -> DataDirLock:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip()
            os.close(fd)
            raise DataDirBusy(self.data_dir, f"pid {holder}" if holder else "pid unknown") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> DataDirLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
