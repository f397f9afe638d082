"""Writing one object to a caller's Google Cloud Storage bucket: a resumable upload session, its bytes
sent in a few spans, each one PUT whose body streams as the file is read.

google-cloud-storage opens the session with the task's token (the object's name, content type and
size); the session's address is its own credential, so the token never goes to it. Its upload engine
would hold each chunk whole in memory, so the spans go from here, each through a small queue
(streamed_put.ChunkedPut): at most SPANS, none under MIN_SPAN, ``Content-Range: bytes a-b/*``, the last
``bytes a-b/<size>``. Few spans matter: some servers' cost per chunk grows with what the session holds
(fake-gcs-server rehashes it all). After a cut or a busy answer the session is asked what it holds
(``bytes */*``) and the file is read again from its start (errors.ReadAgain), what it holds skipped;
the last answer's MD5 is checked against what was read; an aborted write cancels the session. The
upload's own retries are not used: retry.py's policy is the one.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, TypeVar

import requests
from google.cloud.storage._media.requests import ResumableUpload
from google.cloud.storage.exceptions import InvalidResponse

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, pinning, retry
from mcv_pipelines.service.work.caller_storage.contract import Writer
from mcv_pipelines.service.work.caller_storage.streamed_put import ChunkedPut

__all__ = ["MIN_SPAN", "SPANS", "StreamedUpload"]

MIN_SPAN = 8 * 1024 * 1024
SPANS = 4
_QUANTUM = 256 * 1024  # every span but the last is a multiple of it, as the API wants
_SESSION = "the upload session the store answered"


_T = TypeVar("_T")


class UploadStore(Protocol):
    """What a writer needs of the store it writes for: gcs.GcsStore, which imports this module only
    when it first writes (so this one names it by its shape, not by an import back)."""

    endpoint: str
    host: str
    where: str
    retry_for: float
    http: requests.Session
    secrets: errors.Secrets

    def token(self) -> dict[str, str]: ...
    def objects(self, key: str | None = None) -> str: ...
    def location(self, key: str) -> str: ...
    def guarded(self, what: str, whose: str, call: Callable[[], _T]) -> _T: ...
    def refusal(self, answer: requests.Response, what: str, key: str | None = None) -> TaskFailed: ...


class _Body:
    """A span's streamed body, of a length known beforehand (so it goes with a Content-Length)."""

    def __init__(self, chunks: Any, length: int) -> None:
        self._chunks, self._length = chunks, length

    def __iter__(self) -> Any:
        return iter(self._chunks)

    def __len__(self) -> int:
        return self._length


class StreamedUpload(Writer):
    """One object's upload session, written as the file is read (and read again after a fault)."""

    def __init__(self, store: UploadStore, key: str, content_type: str, total: int) -> None:
        self._store, self._total = store, total
        self._what = f"write {store.location(key)}"
        # a quarter of the file, MIN_SPAN at least, rounded up to the quantum
        self._span = -(-max(MIN_SPAN, -(-total // SPANS)) // _QUANTUM) * _QUANTUM
        # the bytes the session holds, held at the last fault, and where the span being sent ends
        self._held = self._since = self._end = 0
        self._stored: dict[str, Any] | None = None  # the object, once the session has all of it
        self._backoff = retry.Backoff(store.retry_for)
        self._put: ChunkedPut | None = None
        url = f"{store.endpoint}/upload{store.objects()}?uploadType=resumable"
        metadata = {"name": key, "contentType": content_type}

        def start() -> ResumableUpload | requests.Response:
            upload = ResumableUpload(url, _QUANTUM, headers=store.token(), retry=None)  # a token each try
            try:
                upload.initiate(
                    store.http,
                    io.BytesIO(),
                    metadata,
                    content_type,
                    total_bytes=total,
                    timeout=pinning.TIMEOUT,
                )
            except InvalidResponse as exc:
                retry.not_busy(exc.response)  # Busy: asked again
                raise store.refusal(exc.response, self._what) from None
            return upload

        opened = store.guarded(self._what, "the Google Cloud Storage endpoint", start)
        if isinstance(opened, requests.Response):  # busy until the time was up: its last answer
            raise store.refusal(opened, self._what)
        self._session = str(opened.resumable_url)
        self._open = True
        self._begin()

    def _begin(self) -> None:
        """A pass over the file from its start (the first, or one after a fault)."""
        self.size = 0
        self._md5 = hashlib.md5(usedforsecurity=False)

    def write(self, data: bytes) -> None:
        assert self._open, "write after commit or abort"
        self._md5.update(data)
        start, self.size = self.size, self.size + len(data)
        position = max(start, min(self.size, self._held))  # what the session holds is skipped
        came = min(self.size, self._total)  # bytes past the size said are never sent: commit says why
        while position < came:
            put = self._put or self._begin_span(position)
            upto = min(came, self._end)
            put.write(data[position - start : upto - start])
            position = upto
            if position == self._end:
                self._end_span(put)

    def _begin_span(self, start: int) -> ChunkedPut:
        # spans keep their bounds after a resume, so there are never more than SPANS + 1
        self._end = min(self._total, (start // self._span + 1) * self._span)
        self._put = ChunkedPut(
            partial(self._send, start, self._end), self._judge,
            lambda exc: isinstance(exc, requests.ConnectionError), self._store.retry_for,
            where=self._store.where,
        )  # fmt: skip
        return self._put

    def _send(self, start: int, end: int, body: Any) -> str:
        # no bytes left: the session is told the whole size (an empty file, or all of it held)
        size = self._total if end == self._total else "*"
        span = f"bytes {start}-{end - 1}/{size}" if end > start else f"bytes */{end}"
        data = _Body(body, end - start) if end > start else b""  # (a length of 0 would go chunked)
        put = partial(self._store.http.put, self._session, data=data, headers={"Content-Range": span},
                      timeout=pinning.TIMEOUT)  # fmt: skip
        # once, never again here (the body streams): the guard's refusals made the task's as every call's
        store = self._store
        self._answered(
            retry.guarded(self._what, put, 0.0, lambda _: False, store.secrets, _SESSION, store.host, ())
        )
        return ""  # the MD5 is the whole object's, checked at commit

    def _answered(self, answer: requests.Response) -> None:
        """What an answer of the session says it holds: all of the object, or the bytes of its Range."""
        status = answer.status_code
        if status in (200, 201):
            self._stored, self._held = answer.json(), self._total
        elif status == 308:
            held = answer.headers.get("Range", "")  # bytes=0-<last>; none: nothing yet
            self._held = int(held.rsplit("-", 1)[1]) + 1 if held else 0
        elif status in retry.BUSY:
            raise retry.Busy(answer, status)
        else:
            raise self._store.refusal(answer, self._what)

    def _judge(self, fault: Exception) -> TaskFailed:
        """A span's fault: once the session says what it holds, the file is read again from there."""
        if not isinstance(fault, (requests.RequestException, retry.Busy)):
            return self._store.secrets.failed(
                errors.FAILED, f"The {self._store.where} stopped taking the file: {fault}"
            )
        ask = partial(self._store.http.put, self._session, headers={"Content-Range": "bytes */*"},
                      timeout=pinning.TIMEOUT)  # fmt: skip
        with contextlib.suppress(retry.Busy):  # still busy: the time left decides
            self._answered(self._store.guarded(self._what, _SESSION, ask))
        return self._again(f"could not {self._what} ({type(fault).__name__})")

    def _again(self, why: str) -> TaskFailed:
        """ReadAgain while the time allows (counted again from each fault after which the session
        held more), else the failure."""
        if self._held > self._since:
            self._backoff, self._since = retry.Backoff(self._store.retry_for), self._held
        self._put = None
        if self._held < self._total and not self._backoff.pause(why):
            return self._store.secrets.failed(
                errors.UNREACHABLE, f"The {self._store.where} stopped taking the file ({why})."
            )
        self._begin()
        return errors.ReadAgain(errors.UNREACHABLE, f"The {self._store.where} stopped taking the file.")

    def _end_span(self, put: ChunkedPut) -> None:
        self._put = None
        put.commit()
        if self._held < self._end:  # the session took less than the span: on from where it stopped
            raise self._again(f"the upload session took {self._held} bytes of {self._end}")

    def commit(self) -> None:
        assert self._open, "commit after commit or abort"
        if self.size != self._total:
            raise TaskFailed(
                errors.FAILED, f"The file changed while it was sent: {self.size} bytes of {self._total}."
            )
        if self._stored is None:  # an empty file (its one span has no bytes), or held whole unsaid
            self._end_span(self._begin_span(self._held))
        assert self._stored is not None
        sent = base64.b64encode(self._md5.digest()).decode()
        if self._stored.get("md5Hash", sent) != sent:
            raise self._store.secrets.failed(
                errors.FAILED, f"Could not {self._what}: the stored object is not the file sent (MD5)."
            )
        self._open = False

    def abort(self) -> None:
        if not self._open:
            return
        self._open = False
        if self._put is not None:
            self._put.abort()
        # cancelled (499), or gone already, or a host the guard refuses: nothing is left
        with contextlib.suppress(requests.RequestException, ForbiddenAddress, UnresolvedHost):
            self._store.http.delete(self._session, timeout=10.0).close()
