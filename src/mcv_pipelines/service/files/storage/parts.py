"""A Writer that sends a file in parts as it comes: the multipart uploads of S3 (the service's own
store and a caller's, s3_upload.py) and the staged blocks of a caller's Azure Blob storage."""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from mcv_pipelines.service.files.storage.base import Writer
from mcv_pipelines.service.state.tasks import TaskFailed

__all__ = ["PartWriter"]


class PartWriter(Writer):
    """Buffers up to one part of ``part_size`` bytes; the first full part starts an upload in parts
    (``_start``), a smaller file is one call (``_whole``).

    A full part is sent (``_part``) from a thread of its own while the next one fills, so receiving
    and sending overlap; at most one part is in flight, so memory stays at about two parts. ``commit``
    sends the rest and makes the file of the parts (``_finish``), which is when it appears; ``abort``
    finishes nothing and drops what was begun (``_drop``).
    """

    def __init__(self, part_size: int, thread_name: str) -> None:
        self._part_size, self._thread_name = part_size, thread_name
        self._buffer = bytearray()
        self._parts: list[Any] = []  # what ``_part`` returned for each part sent, in order
        self._sender: ThreadPoolExecutor | None = None  # started by the first part
        self._in_flight: Future[Any] | None = None
        self._open = True
        self.size = 0

    @abstractmethod
    def _whole(self, body: bytes) -> None:
        """Store a file smaller than one part in one call."""

    def _start(self) -> None:
        """Begin the upload in parts, before the first one is sent."""

    @abstractmethod
    def _part(self, number: int, part: bytes) -> Any:
        """Send part ``number`` (from 1), in the sender's thread; what it returns goes to ``_finish``."""

    @abstractmethod
    def _finish(self, parts: list[Any]) -> None:
        """Make the file of every part sent."""

    def _drop(self) -> None:
        """Drop what an aborted writer began (called whether or not it began anything)."""

    def write(self, data: bytes) -> None:
        assert self._open, "write after commit or abort"
        self._buffer += data
        self.size += len(data)
        while len(self._buffer) >= self._part_size:
            self._send(self._part_size)

    def _send(self, length: int) -> None:
        """Hand the buffer's first ``length`` bytes to the sender thread once the part before has
        arrived (so at most one part is in flight and one is filling)."""
        self._settle()
        with memoryview(self._buffer) as view:
            part = bytes(view[:length])  # one copy; the buffer keeps only the rest
        del self._buffer[:length]
        if self._sender is None:
            self._start()
            self._sender = ThreadPoolExecutor(1, thread_name_prefix=self._thread_name)
        self._in_flight = self._sender.submit(self._part, len(self._parts) + 1, part)

    def _settle(self) -> None:
        """Wait for the part in flight; its failure surfaces here."""
        if self._in_flight is not None:
            future, self._in_flight = self._in_flight, None
            self._parts.append(future.result())

    def commit(self) -> None:
        assert self._open, "commit after commit or abort"
        if self._sender is None:
            self._whole(bytes(self._buffer))
        else:
            if self._buffer:
                self._send(len(self._buffer))
            self._settle()
            self._finish(self._parts)
        self._close()

    def abort(self) -> None:
        if not self._open:
            return
        with contextlib.suppress(TaskFailed):  # nothing is finished: what was begun is dropped anyway
            self._settle()
        self._close()
        self._drop()

    def _close(self) -> None:
        self._open = False
        self._buffer = bytearray()
        if self._sender is not None:
            self._sender.shutdown(wait=True)
