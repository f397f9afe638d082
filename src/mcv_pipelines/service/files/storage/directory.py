"""``file:///DIR``: tasks' files in a directory, ``DIR/tasks/<task_id>/<filename>``.

With DIR the data directory (the default) this is the layout the service always had, and the
scheduler's task directories ARE the store: engines write their outputs in place and read their
inputs in place, so the single-process default makes no extra copies.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.files.storage.base import CHUNK, Storage, StorageError, Writer

__all__ = ["DirectoryStorage", "FileWriter"]

_PARTIAL = ".upload-partial-"


class FileWriter(Writer):
    """A file written under a partial name and renamed to ``target`` on commit."""

    def __init__(self, target: Path) -> None:
        self._target = target
        self._partial = target.with_name(_PARTIAL + secrets.token_hex(4))
        target.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[bytes] | None = self._partial.open("wb")
        self.size = 0

    def write(self, data: bytes) -> None:
        assert self._handle is not None, "write after commit or abort"
        self._handle.write(data)
        self.size += len(data)

    def commit(self) -> None:
        assert self._handle is not None, "commit after commit or abort"
        self._handle.close()
        self._handle = None
        self._partial.replace(self._target)

    def abort(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
            self._partial.unlink(missing_ok=True)


class DirectoryStorage(Storage):
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._tasks = self.root / "tasks"
        self.url = self.root.resolve().as_uri()
        try:
            self._tasks.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"Cannot use the storage directory {self.root}: {exc.strerror}.") from None

    def task_dir(self, task_id: str) -> Path:
        return self._tasks / safe_filename(task_id)

    def path(self, task_id: str, filename: str) -> Path:
        return self.task_dir(task_id) / safe_filename(filename)

    def writer(self, task_id: str, filename: str) -> Writer:
        return FileWriter(self.path(task_id, filename))

    def put_file(self, task_id: str, filename: str, path: Path) -> None:
        target = self.path(task_id, filename)
        try:
            if os.path.samefile(path, target):  # the engine wrote its output in place
                return
        except OSError:  # no target yet (or no source: os.replace says so below)
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(path, target)
        except OSError:  # another file system: copy, then drop the source
            with path.open("rb") as source:
                self.put_stream(task_id, filename, iter(lambda: source.read(CHUNK), b""))
            path.unlink(missing_ok=True)

    def copy(
        self, task_id: str, filename: str, to_task_id: str, to_filename: str, size: int | None = None
    ) -> None:
        source, target = self.path(task_id, filename), self.path(to_task_id, to_filename)
        if not source.is_file():
            raise FileNotFoundError(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        try:
            os.link(source, target)  # stored files are never written in place: sharing is safe
        except OSError:
            with source.open("rb") as handle:
                self.put_stream(to_task_id, to_filename, iter(lambda: handle.read(CHUNK), b""))

    def read(self, task_id: str, filename: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        path = self.path(task_id, filename)
        handle = path.open("rb")  # FileNotFoundError before the first chunk
        return _chunks(handle, start, end)

    def size(self, task_id: str, filename: str) -> int | None:
        path = self.path(task_id, filename)
        return path.stat().st_size if path.is_file() else None

    def delete_task(self, task_id: str) -> None:
        shutil.rmtree(self.task_dir(task_id), ignore_errors=True)

    def fetch(self, task_id: str, filename: str, target_dir: Path) -> Path | None:
        path = self.path(task_id, filename)
        return path if path.is_file() else None

    def local_path(self, task_id: str, filename: str) -> Path:
        return self.path(task_id, filename)

    def close(self) -> None:
        pass  # nothing held open between calls

    def ping(self) -> bool:
        return (self.root / "tasks").is_dir() and os.access(self.root / "tasks", os.W_OK | os.X_OK)


def _chunks(handle: IO[bytes], start: int, end: int | None) -> Iterator[bytes]:
    with handle:
        handle.seek(start)
        left = None if end is None else end - start + 1
        while left is None or left > 0:
            chunk = handle.read(CHUNK if left is None else min(CHUNK, left))
            if not chunk:
                return
            if left is not None:
                left -= len(chunk)
            yield chunk
