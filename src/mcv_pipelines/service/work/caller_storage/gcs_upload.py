"""Writing one object to a caller's Google Cloud Storage bucket as a resumable upload session.

The session is opened with the object's name and content type; the bytes follow in chunks of
UPLOAD_CHUNK (a multiple of 256 KiB, as the API wants of every chunk but the last), each PUT with its
Content-Range, so no more than a chunk is ever held. The object appears only when the last chunk,
which carries the total size, is taken; an aborted writer cancels its session and leaves nothing.
After a cut or a 5xx the session is asked how much it holds and the upload goes on from there.
The session's address is its own credential: the task's token is never sent to it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import re
import time
from collections.abc import Container
from typing import Protocol

import httpx

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import Writer

__all__ = ["UPLOAD_CHUNK", "ResumableWriter", "SessionStore"]

UPLOAD_CHUNK = 8 * 1024 * 1024
_QUANTUM = 256 * 1024
assert UPLOAD_CHUNK % _QUANTUM == 0
_INCOMPLETE = 308  # the session holds part of the object and wants the rest
_RANGE = re.compile(r"^bytes=0-(\d+)$")


class SessionStore(Protocol):
    """What the writer uses of its store (gcs.GcsStore): the store imports the writer, not the
    other way round."""

    @property
    def where(self) -> str: ...
    @property
    def retry_for(self) -> float: ...
    @property
    def retried(self) -> Container[int]: ...
    @property
    def client(self) -> httpx.Client: ...

    def location(self, key: str) -> str: ...
    def open_session(self, key: str, content_type: str) -> str: ...
    def failed(self, code: str, message: str) -> TaskFailed: ...
    def refusal(self, answer: httpx.Response, what: str, key: str | None = None) -> TaskFailed: ...


class ResumableWriter(Writer):
    def __init__(self, store: SessionStore, key: str, content_type: str) -> None:
        self._store, self._key, self._type = store, key, content_type
        self._what = f"write {store.location(key)}"
        self._buffer = bytearray()
        self._sent = 0  # bytes the session holds
        self._md5 = hashlib.md5(usedforsecurity=False)
        self.size = 0
        self._session: str | None = self._start()

    def _start(self) -> str:
        session = self._store.open_session(self._key, self._type)
        self._check_session(session)
        return session

    def _check_session(self, session: str) -> None:
        """The session must be an http(s) address. Its host, one the store named, is checked by the
        client's guard on each PUT (http_calls.GuardedTransport, once per host for the task), as a
        caller's address is; a refusal there says it is the upload session's (``_session_call``)."""
        try:
            url = httpx.URL(session)
        except httpx.InvalidURL:
            url = httpx.URL("")
        if url.scheme not in ("http", "https") or not url.host:
            store = self._store
            raise store.failed(errors.FAILED, f"The {store.where} opened an upload without a usable address.")

    def write(self, data: bytes) -> None:
        assert self._session is not None, "write after commit or abort"
        self._buffer += data
        self._md5.update(data)
        self.size += len(data)
        while len(self._buffer) >= UPLOAD_CHUNK:
            self._put(final=False)

    def commit(self) -> None:
        assert self._session is not None, "commit after commit or abort"
        body = self._put(final=True)
        self._session = None
        self._check_stored(body)

    def _put(self, final: bool) -> dict[str, object]:
        """Send the next chunk (all that is left, with the total, when ``final``); after a cut or a
        transient answer, learn what the session holds and go on from there. The answer's JSON once
        the object is complete."""
        store = self._store
        deadline = time.monotonic() + store.retry_for
        while True:
            count = len(self._buffer) if final else min(UPLOAD_CHUNK, len(self._buffer))
            total = str(self.size) if final else "*"
            span = f"bytes {self._sent}-{self._sent + count - 1}/{total}" if count else f"bytes */{total}"
            try:
                answer = self._session_call(span, bytes(self._buffer[:count]))
            except httpx.TransportError as exc:
                code, fault = errors.UNREACHABLE, repr(exc)
            else:
                taken = self._taken(answer, final)
                if taken is not None:
                    return taken
                code, fault = errors.FAILED, f"HTTP {answer.status_code}"
            if time.monotonic() >= deadline:
                raise store.failed(code, f"Could not {self._what} ({fault}) in the {store.where}.")
            time.sleep(0.5)
            complete = self._ask_held(total)
            if complete is not None:
                return complete
            if not final and len(self._buffer) < UPLOAD_CHUNK:  # the rest waits for a full chunk
                return {}

    def _taken(self, answer: httpx.Response, final: bool) -> dict[str, object] | None:
        """What a chunk's answer means: taken ({}), the object complete (its JSON), or to be tried
        again (None); a refusal fails the task."""
        status = answer.status_code
        if status in (200, 201):
            return self._complete(answer, final)
        if status == _INCOMPLETE and not final:
            self._held(answer)
            return {}
        if status not in self._store.retried and status != _INCOMPLETE:
            raise self._store.refusal(answer, self._what)
        return None

    def _session_call(self, span: str, body: bytes) -> httpx.Response:
        assert self._session is not None
        # The object's type on every PUT, as Google's clients send it (some servers take the last one).
        headers = {"Content-Range": span, "Content-Type": self._type}
        try:  # the guarded client checks the session's host and connects where it checked
            return self._store.client.put(self._session, content=body, headers=headers)
        except ForbiddenAddress as exc:
            raise errors.forbidden_address(exc, "the upload session the store answered") from None
        except UnresolvedHost as exc:
            raise TaskFailed(
                errors.UNREACHABLE, f"Could not reach the upload session's host: {exc.reason}."
            ) from None

    def _ask_held(self, total: str) -> dict[str, object] | None:
        """Ask the session how much it holds (a PUT without bytes) and drop that much of the buffer;
        the object's JSON if the session says it is complete."""
        try:
            answer = self._session_call(f"bytes */{total}", b"")
        except httpx.TransportError:
            return None
        if answer.status_code in (200, 201):
            return self._complete(answer, final=total != "*")
        if answer.status_code == _INCOMPLETE:
            self._held(answer)
        elif answer.status_code not in self._store.retried:
            raise self._store.refusal(answer, self._what)
        return None

    def _complete(self, answer: httpx.Response, final: bool) -> dict[str, object]:
        """The object's JSON from the answer that ended the session, which only the last chunk may."""
        if not final:
            raise self._store.failed(
                errors.FAILED, f"Could not {self._what}: the upload session ended before the file did."
            )
        return _json(answer)

    def _held(self, answer: httpx.Response) -> None:
        """Take the session's Range (bytes=0-N: it holds N + 1 bytes; none without one)."""
        found = _RANGE.match(answer.headers.get("range", ""))
        held = int(found.group(1)) + 1 if found else 0
        if not self._sent <= held <= self._sent + len(self._buffer):
            raise self._store.failed(
                errors.FAILED, f"Could not {self._what}: the upload session lost bytes it had taken."
            )
        del self._buffer[: held - self._sent]
        self._sent = held

    def _check_stored(self, body: dict[str, object]) -> None:
        """What the store says it holds is what was sent (size, and MD5 when it gives one)."""
        store = self._store
        size, md5 = body.get("size"), body.get("md5Hash")
        sent_md5 = base64.b64encode(self._md5.digest()).decode()
        if (size is not None and str(size) != str(self.size)) or (md5 is not None and md5 != sent_md5):
            raise store.failed(
                errors.FAILED,
                f"Could not {self._what}: the stored object is not the file sent (size or MD5).",
            )

    def abort(self) -> None:
        if self._session is None:
            return
        session, self._session = self._session, None
        # cancelled (499), or gone already, or a host the guard refuses: nothing is left
        with contextlib.suppress(httpx.HTTPError, ForbiddenAddress, UnresolvedHost):
            self._store.client.delete(session, timeout=10.0)


def _json(answer: httpx.Response) -> dict[str, object]:
    try:
        body = answer.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
