"""The seam between the service and where a task's files live.

A store keeps each task's files under ``tasks/<task_id>/<filename>``. Routes and the scheduler reach
files only through these methods, so a worker on another machine needs nothing but the database and
the store. Every method that talks to a remote store raises StorageError (never the client library's
own exceptions), with a message that names the object and carries no credentials.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from pathlib import Path

from mcv_pipelines.service.state.tasks import TaskFailed

__all__ = ["CHUNK", "Storage", "StorageError", "Writer"]

CHUNK = 1024 * 1024  # what a read yields at a time


class StorageError(TaskFailed):
    """The store could not do what was asked. A task that meets it ends with code STORAGE_FAILED;
    ``transient``: the store was away (tried again until the bound ran out), so on a team's workers the
    task goes back to the queue instead (issue 25)."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__("STORAGE_FAILED", message)
        self.transient = transient


class Writer(ABC):
    """One file being written as a stream: ``write`` the chunks, then ``commit`` (or ``abort``).

    Nothing is visible under the file's name before ``commit``; memory stays bounded whatever the size.
    """

    size: int = 0

    @abstractmethod
    def write(self, data: bytes) -> None: ...

    @abstractmethod
    def commit(self) -> None: ...

    @abstractmethod
    def abort(self) -> None:
        """Drop what was written; safe to call after commit (then it does nothing) and twice."""


class Storage(ABC):
    """Where tasks' files live. ``url`` is the store's address as shown to users (no credentials)."""

    url: str

    @abstractmethod
    def writer(self, task_id: str, filename: str) -> Writer: ...

    @abstractmethod
    def put_file(self, task_id: str, filename: str, path: Path) -> None:
        """Store the local file ``path``; the caller no longer needs it (a store may move it)."""

    @abstractmethod
    def copy(
        self, task_id: str, filename: str, to_task_id: str, to_filename: str, size: int | None = None
    ) -> None:
        """Copy a stored file within the store (server-side where it can). FileNotFoundError when the
        source is not there. ``size``, when the caller knows it, spares a store the look it would
        take to choose how to copy."""

    @abstractmethod
    def read(self, task_id: str, filename: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes ``start`` up to and including ``end`` (None: to the end), in chunks.
        FileNotFoundError when the file is not there."""

    @abstractmethod
    def size(self, task_id: str, filename: str) -> int | None:
        """The file's size in bytes, None when it is not there."""

    @abstractmethod
    def delete_task(self, task_id: str) -> None:
        """Remove every file of the task (nothing to remove is no error)."""

    @abstractmethod
    def fetch(self, task_id: str, filename: str, target_dir: Path) -> Path | None:
        """A local path an engine can read the file at: the stored file itself where the store is a
        directory, else a copy written into ``target_dir``. None when the file is not there."""

    @abstractmethod
    def local_path(self, task_id: str, filename: str) -> Path | None:
        """Where the file is on this machine's disk when the store is a directory, else None."""

    @abstractmethod
    def ping(self) -> bool:
        """Is the store reachable and usable now (for readiness checks)? Never raises."""

    @abstractmethod
    def close(self) -> None:
        """Release connections; the store is not used afterwards."""

    def exists(self, task_id: str, filename: str) -> bool:
        return self.size(task_id, filename) is not None

    def put_stream(self, task_id: str, filename: str, chunks: Iterable[bytes]) -> int:
        """Store a stream of chunks under the file's name; returns its size."""
        writer = self.writer(task_id, filename)
        try:
            for chunk in chunks:
                writer.write(chunk)
            writer.commit()
        finally:
            writer.abort()
        return writer.size
