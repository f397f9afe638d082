"""One object written to Swift as it comes: a PUT with ``Transfer-Encoding: chunked`` whose body is fed
by the Writer's ``write`` calls through a small queue, sent from a thread of its own.

Swift stores the object only when the last chunk has come, so an aborted write (the body stops with
an error and the connection is dropped) leaves nothing under the name; the ETag Swift answers is
checked against the MD5 of what was sent. A PUT that did not connect is tried again within the task's
retry time; one whose body has begun cannot be (the chunks are not kept), so a 5xx answer or a cut
connection after that fails the file.

Swift refuses single objects over its ``max_file_size`` (5 GiB unless the operator changed it): a
file known to be larger is written in segments (swift_segments.py); one that passes the bound all
the same (its size was not known) stops with a clear error as soon as it does.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import threading
import time
from collections.abc import Callable, Iterator

import httpx

from mcv_pipelines.service.files.storage.base import Writer
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["LARGEST", "ChunkedPut"]

LARGEST = 5 * 1024**3  # Swift's default max_file_size, give or take its 2 bytes
_IN_FLIGHT = 4  # chunks waiting to be sent: memory stays at a few MiB whatever the size
_STOP = object()


class _Aborted(Exception):
    """Ends the request body: the PUT is dropped unfinished."""


class ChunkedPut(Writer):
    """``send(body)`` makes the PUT request with ``body`` as its content and returns the answer;
    ``judge(answer)`` raises the TaskFailed a refusal means."""

    def __init__(
        self,
        send: Callable[[Iterator[bytes]], httpx.Response],
        judge: Callable[[httpx.Response], None],
        where: str,
        retry_for: float,
        largest: int = LARGEST,
    ) -> None:
        self._send, self._judge, self._where, self._largest = send, judge, where, largest
        self._deadline = time.monotonic() + retry_for
        self._started = False  # once the body is being sent, the PUT cannot be made again
        self._chunks: queue.Queue[object] = queue.Queue(_IN_FLIGHT)
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._answer: httpx.Response | None = None
        self._failure: BaseException | None = None
        self._done = False
        self._thread = threading.Thread(target=self._run, name="mcv-swift-put", daemon=True)
        self._thread.start()

    def _body(self) -> Iterator[bytes]:
        self._started = True
        while True:
            chunk = self._chunks.get()
            if chunk is _STOP:
                return
            if not isinstance(chunk, bytes):
                raise _Aborted()
            yield chunk

    def _run(self) -> None:
        wait = 0.2
        while True:
            try:
                self._answer = self._send(self._body())
                return
            except httpx.TransportError as exc:  # no connection yet: try again while time allows
                if self._started or time.monotonic() + wait >= self._deadline:
                    self._failure = exc
                    return
            except BaseException as exc:  # handed to the writing thread
                self._failure = exc
                return
            time.sleep(wait)
            wait = min(wait * 2, 5.0)

    def _put(self, item: object) -> None:
        while self._thread.is_alive():
            try:
                self._chunks.put(item, timeout=0.5)
                return
            except queue.Full:
                continue
        self._raise_failure()

    def _raise_failure(self) -> None:
        if self._answer is not None:  # answered before the body ended: a refusal
            self._answer.close()
            self._judge(self._answer)
        failure = self._failure
        if isinstance(failure, TaskFailed):
            raise failure
        raise TaskFailed(errors.UNREACHABLE, f"The {self._where} stopped taking the file: {failure}")

    def write(self, data: bytes) -> None:
        if self.size + len(data) > self._largest:
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
        if self._answer is None:
            self._raise_failure()
        assert self._answer is not None
        self._answer.close()
        self._judge(self._answer)
        etag = self._answer.headers.get("ETag", "").strip('"')
        if etag and etag != self._md5.hexdigest():
            raise TaskFailed(
                errors.FAILED, f"The {self._where} stored other bytes than were sent (ETag {etag})."
            )
        self._done = True

    def abort(self) -> None:
        if self._done or not self._thread.is_alive():
            return
        while True:  # make room for the mark that ends the body with an error
            try:
                self._chunks.put_nowait("abort")
                break
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._chunks.get_nowait()
        self._thread.join()
        self._done = True
