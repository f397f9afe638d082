"""One object (or one span of it) written as it comes: a PUT whose body is fed by the Writer's
``write`` calls through a small queue, sent from a thread of its own (Swift's objects and segments,
Google Cloud Storage's upload spans).

The store keeps the body only when all of it has come, so an aborted write (the body ends with an
error) leaves nothing; ``send`` returns the ETag answered, checked against the MD5 of what was sent
("" where the kind checks otherwise). A PUT that did not connect is made again within the task's retry
time; one whose body has begun cannot be (the chunks are not kept), and ``judge`` says what its fault
means. Past ``largest`` (Swift's ``max_file_size`` for a file of unknown size), a write stops at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import threading
from collections.abc import Callable, Iterator

from mcv_pipelines.service.files.storage.base import Writer
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, retry

__all__ = ["ChunkedPut"]

_IN_FLIGHT = 4  # chunks waiting to be sent: memory stays at a few MiB whatever the size
_STOP, _ABORT = object(), object()


class _Aborted(Exception):
    """Ends the request body: the PUT is dropped unfinished."""


class ChunkedPut(Writer):
    """``send(body)`` makes the PUT with ``body`` as its content and returns the ETag answered;
    ``judge(fault)`` is the TaskFailed its fault means; ``unconnected(fault)``: whether it is a PUT
    that never connected (so it may be made again)."""

    def __init__(
        self,
        send: Callable[[Iterator[bytes]], str],
        judge: Callable[[Exception], TaskFailed],
        unconnected: Callable[[Exception], bool],
        retry_for: float,
        largest: int | None = None,
        where: str = "",
    ) -> None:
        self._send, self._judge, self._unconnected = send, judge, unconnected
        self._largest, self._where = largest, where
        self._backoff = retry.Backoff(retry_for)
        self._started = False  # once the body is being sent, the PUT cannot be made again
        self._chunks: queue.Queue[object] = queue.Queue(_IN_FLIGHT)
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._etag: str | None = None
        self._failure: Exception | None = None
        self.size = 0
        self._thread = threading.Thread(target=self._run, name="mcv-streamed-put", daemon=True)
        self._thread.start()

    def _body(self) -> Iterator[bytes]:
        self._started = True
        while (chunk := self._chunks.get()) is not _STOP:
            if not isinstance(chunk, bytes):  # _ABORT
                raise _Aborted()
            yield chunk

    def _run(self) -> None:
        while True:
            try:
                self._etag = self._send(self._body())
                return
            except Exception as exc:  # handed to the writing thread
                if self._started or not self._unconnected(exc) or not self._backoff.pause():
                    self._failure = exc
                    return

    def _put(self, item: object) -> None:
        while self._thread.is_alive():
            with contextlib.suppress(queue.Full):
                self._chunks.put(item, timeout=0.5)
                return
        raise self._fault()

    def _fault(self) -> TaskFailed:
        """What the PUT ended with, as the task's failure."""
        if isinstance(self._failure, TaskFailed):
            return self._failure
        if self._failure is not None:
            return self._judge(self._failure)
        return TaskFailed(errors.UNREACHABLE, f"The {self._where} stopped taking the file.")

    def write(self, data: bytes) -> None:
        if self._largest is not None and self.size + len(data) > self._largest:
            raise TaskFailed(
                errors.FAILED,
                f"A file over {self._largest} bytes cannot be stored as one object in the {self._where}, "
                "and its size was not known beforehand to write it in segments (a Static Large Object).",
            )
        if data:
            self._md5.update(data)
            self.size += len(data)
            self._put(bytes(data))

    @property
    def md5(self) -> str:
        """The MD5 of what was written, as hex: the ETag Swift gives the object."""
        return self._md5.hexdigest()

    def commit(self) -> None:
        self._put(_STOP)
        self._thread.join()
        if self._etag is None:
            raise self._fault()
        if self._etag and self._etag != self.md5:
            raise TaskFailed(
                errors.FAILED, f"The {self._where} stored other bytes than were sent (ETag {self._etag})."
            )

    def abort(self) -> None:
        if not self._thread.is_alive():  # committed, failed or aborted: nothing is being sent
            return
        with contextlib.suppress(queue.Empty):  # room for the mark that ends the body with an error
            while True:
                self._chunks.get_nowait()
        self._chunks.put_nowait(_ABORT)
        self._thread.join()
