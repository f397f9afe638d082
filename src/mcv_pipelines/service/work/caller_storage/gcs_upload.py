"""Writing one object to a caller's Google Cloud Storage bucket: google-cloud-storage's resumable upload.

The session is opened with the task's token (the object's name and content type); the bytes follow in
chunks of UPLOAD_CHUNK, each PUT with its Content-Range, of a size not known until the last (so no
more than about two chunks are ever held); the object appears when the last chunk is taken, its MD5
checked by the upload. After a cut or a busy answer the session is asked what it holds and the upload
goes on from there; a refused chunk cancels the session. The session's address is its own credential:
the token is never sent to it. The upload's own retries are off: retry.py's policy is the one.

google.cloud.storage._media is the upload engine of google-cloud-storage's Blob (it was the package
google-resumable-media): pyproject.toml bounds google-cloud-storage to the major version tested.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

import requests
from google.cloud.storage._media.requests import ResumableUpload
from google.cloud.storage.exceptions import DataCorruption, InvalidResponse

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, retry
from mcv_pipelines.service.work.caller_storage.contract import Writer

__all__ = ["UPLOAD_CHUNK", "ResumableWriter", "UploadStore"]

UPLOAD_CHUNK = 8 * 1024 * 1024  # a multiple of 256 KiB, as the API wants of every chunk but the last


class _Held:
    """The upload's stream: what was written and not yet taken by the session (read, told and
    sought by the upload as a file's)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.base = 0  # the position of buffer[0]
        self.position = 0

    def read(self, size: int = -1) -> bytes:
        start = self.position - self.base
        with memoryview(self.buffer) as view:  # one copy, of what is read
            data = bytes(view[start:] if size < 0 else view[start : start + size])
        self.position += len(data)
        return data

    def tell(self) -> int:
        return self.position

    def seek(self, position: int, whence: int = 0) -> int:
        assert whence == 0
        assert position >= self.base, "only back to what the session has not taken"
        self.position = position
        return position

    def taken(self, upto: int) -> None:
        del self.buffer[: upto - self.base]
        self.base = upto

    def unsent(self) -> int:
        return self.base + len(self.buffer) - self.position


class UploadStore(Protocol):
    """What a writer needs of the store it writes for (gcs.GcsStore, which imports this module only
    when it writes): its session and token, the bucket's names, how its calls retry and fail."""

    @property
    def bucket(self) -> str: ...

    @property
    def host(self) -> str: ...

    @property
    def retry_for(self) -> float: ...

    @property
    def http(self) -> requests.Session: ...

    @property
    def secrets(self) -> errors.Secrets: ...

    def token(self) -> dict[str, str]: ...

    def url(self, path: str) -> str: ...

    def location(self, key: str) -> str: ...

    def refusal(self, answer: requests.Response, what: str, key: str | None = None) -> TaskFailed: ...


class _WithToken:
    """The upload's transport for opening the session: the store's session with the task's token."""

    def __init__(self, store: UploadStore) -> None:
        self._store = store

    def request(self, method: str, url: str, **options: Any) -> requests.Response:
        headers = {**dict(options.pop("headers", None) or {}), **self._store.token()}
        return self._store.http.request(method, url, headers=headers, **options)


class ResumableWriter(Writer):
    def __init__(self, store: UploadStore, key: str, content_type: str) -> None:
        self._store = store
        self._what = f"write {store.location(key)}"
        self._stream = _Held()
        self._final = False
        self._lost = False  # a chunk's answer did not come: ask the session what it holds
        self._whole = False  # ... and it answered that the object is complete
        self.size = 0
        bucket = store.bucket.replace("/", "%2F")
        url = store.url(f"/upload/storage/v1/b/{bucket}/o?uploadType=resumable")
        self._upload = ResumableUpload(url, UPLOAD_CHUNK, checksum="md5", retry=None)
        self._open = False
        metadata = {"name": key, "contentType": content_type}
        self._call(lambda: self._upload.initiate(_WithToken(store), self._stream, metadata, content_type,
                                                 stream_final=False, timeout=(10.0, 60.0)),
                   "the Google Cloud Storage endpoint")  # fmt: skip
        self._open = True

    def write(self, data: bytes) -> None:
        assert self._open, "write after commit or abort"
        self._stream.buffer += data
        self.size += len(data)
        while self._stream.unsent() >= UPLOAD_CHUNK:
            self._next()

    def commit(self) -> None:
        assert self._open, "commit after commit or abort"
        self._final = True
        while not (self._upload.finished or self._whole):
            self._next()
        self._open = False

    def _next(self) -> None:
        """Send the next chunk; after a cut or a busy answer, learn what the session holds first."""

        def send() -> None:
            if self._lost or self._upload.invalid:
                self._lost = True
                try:
                    self._upload.recover(self._store.http)  # Content-Range: bytes */*
                except InvalidResponse as exc:  # the answer lost was the last chunk's: done
                    self._whole = self._final and exc.response.status_code in (200, 201)
                    if not self._whole:
                        raise
                    return
                self._lost = False
                if not self._final and self._stream.unsent() < UPLOAD_CHUNK:
                    return  # the rest waits for a full chunk
            try:
                self._upload.transmit_next_chunk(self._store.http, timeout=(10.0, 60.0))
            except Exception:  # a busy answer leaves the upload valid, but its stream went on
                self._lost = True
                raise
            self._stream.taken(self._upload.bytes_uploaded)

        self._call(send, "the upload session the store answered")

    def _call(self, action: Callable[[], Any], whose: str) -> None:
        store = self._store
        try:
            retry.guarded(
                self._what, action, store.retry_for, _transient, store.secrets, whose, store.host,
                (requests.RequestException,),
            )  # fmt: skip
        except InvalidResponse as exc:
            raise store.refusal(exc.response, self._what) from None
        except DataCorruption:
            raise store.secrets.failed(
                errors.FAILED, f"Could not {self._what}: the stored object is not the file sent (MD5)."
            ) from None

    def abort(self) -> None:
        if not self._open:
            return
        self._open = False
        session = self._upload.resumable_url
        # cancelled (499), or gone already, or a host the guard refuses: nothing is left
        with contextlib.suppress(requests.RequestException, ForbiddenAddress, UnresolvedHost):
            if session:
                self._store.http.delete(session, timeout=10.0).close()


def _transient(exc: Exception) -> bool:
    if isinstance(exc, InvalidResponse):
        return getattr(exc.response, "status_code", 0) in retry.BUSY
    return isinstance(exc, (requests.ConnectionError, requests.Timeout))
