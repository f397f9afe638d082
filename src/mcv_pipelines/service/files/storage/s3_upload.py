"""Calls to S3 with botocore's exceptions translated, and the streaming multipart writer of s3.py."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from boto3.exceptions import Boto3Error
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    IncompleteReadError,
    ReadTimeoutError,
    ResponseStreamingError,
)

from mcv_pipelines.redact import redact
from mcv_pipelines.service.files.storage.base import StorageError, Writer
from mcv_pipelines.service.state.tasks import TaskFailed

__all__ = ["PART_SIZE", "MultipartWriter", "Runner", "call"]

log = logging.getLogger(__name__)
PART_SIZE = 8 * 1024 * 1024  # S3 wants parts of at least 5 MiB (but the last)
_T = TypeVar("_T")
Runner = Callable[[str, Callable[[], Any]], Any]  # (what, action) -> the action's answer
_MISSING = frozenset({"404", "NoSuchKey", "NotFound"})
_BUSY = frozenset({"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "503", "500"})
# The server away, or the connection cut: worth another try. (Credentials, a bad bucket name, a
# refused request are not: they fail at once.)
_TRANSIENT = (
    EndpointConnectionError,
    ConnectionClosedError,
    ConnectTimeoutError,
    ReadTimeoutError,
    ResponseStreamingError,
    IncompleteReadError,
)
_FIRST_WAIT, _LONGEST_WAIT = 0.25, 5.0


def call(what: str, action: Callable[[], _T], retry_for: float = 0.0) -> _T:
    """``action()``, with botocore's exceptions turned into StorageError naming ``what``. A transient
    fault (no connection, a timeout, a 5xx or SlowDown) is tried again with growing waits for up to
    ``retry_for`` seconds: a store that is away for a moment delays a task, it does not fail it."""
    deadline = time.monotonic() + retry_for
    wait = _FIRST_WAIT
    while True:
        try:
            return action()
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code") or "error")
            if code in _MISSING:
                raise FileNotFoundError(what) from None
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
            if (status >= 500 or code in _BUSY) and time.monotonic() + wait < deadline:
                log.warning("%s", redact(f"S3 failed to {what} ({code}); trying again in {wait:.1f} s"))
            else:
                detail = str(error.get("Message") or code)
                transient = status >= 500 or code in _BUSY
                raise StorageError(redact(f"S3 refused to {what}: {code}: {detail}"), transient) from None
        except (BotoCoreError, Boto3Error) as exc:
            if not (isinstance(exc, _TRANSIENT) and time.monotonic() + wait < deadline):
                transient = isinstance(exc, _TRANSIENT)
                raise StorageError(redact(f"Could not {what}: {exc}"), transient) from None
            log.warning(
                "%s", redact(f"could not {what} ({type(exc).__name__}); trying again in {wait:.1f} s")
            )
        time.sleep(wait)
        wait = min(wait * 2, _LONGEST_WAIT)


class MultipartWriter(Writer):
    """Buffers up to one part; the first full part starts a multipart upload, small files are one PUT.

    A full part is sent from a thread of its own while the next one fills, so receiving and sending
    overlap; at most one part is in flight, so memory stays at about two parts.
    """

    def __init__(
        self,
        client: Any,
        bucket: str,
        key: str,
        retry_for: float = 0.0,
        attributes: Mapping[str, Any] | None = None,
        run: Runner | None = None,
    ) -> None:
        """``attributes``: what the object is stored with (ContentType, Metadata, ACL, Tagging, ...),
        given as they are to put_object or create_multipart_upload. ``run(what, action)``: how calls
        are made (default: ``call`` with ``retry_for``), for a caller that translates errors its way."""
        self._client, self._bucket, self._key = client, bucket, key
        self._retry_for = retry_for
        self._attributes = dict(attributes or {})
        self._run: Runner = run or (lambda what, action: call(what, action, retry_for))
        self._buffer = bytearray()
        self._upload_id: str | None = None
        self._parts: list[dict[str, Any]] = []
        self._sender: ThreadPoolExecutor | None = None
        self._in_flight: Future[dict[str, Any]] | None = None
        self._open = True
        self.size = 0

    def _where(self) -> str:
        return f"s3://{self._bucket}/{self._key}"

    def write(self, data: bytes) -> None:
        assert self._open, "write after commit or abort"
        self._buffer += data
        self.size += len(data)
        while len(self._buffer) >= PART_SIZE:
            self._send(PART_SIZE)

    def _send(self, length: int) -> None:
        """Hand the buffer's first ``length`` bytes to the sender thread once the part before has
        arrived (so at most one part is in flight and one is filling)."""
        self._settle()
        with memoryview(self._buffer) as view:
            part = bytes(view[:length])  # one copy; the buffer keeps only the rest
        del self._buffer[:length]
        if self._upload_id is None:
            c, bucket, key = self._client, self._bucket, self._key
            attributes = self._attributes
            started = self._run(
                f"start uploading {self._where()}",
                lambda: c.create_multipart_upload(Bucket=bucket, Key=key, **attributes),
            )
            self._upload_id = str(started["UploadId"])
            self._sender = ThreadPoolExecutor(1, thread_name_prefix="mcv-s3-part")
        assert self._sender is not None
        self._in_flight = self._sender.submit(self._upload_part, len(self._parts) + 1, part)

    def _upload_part(self, number: int, part: bytes) -> dict[str, Any]:
        c, bucket, key, upload_id = self._client, self._bucket, self._key, self._upload_id
        sent = self._run(
            f"upload part {number} of {self._where()}",
            lambda: c.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=part),
        )
        return {"PartNumber": number, "ETag": sent["ETag"]}

    def _settle(self) -> None:
        """Wait for the part in flight; its StorageError surfaces here."""
        if self._in_flight is not None:
            future, self._in_flight = self._in_flight, None
            self._parts.append(future.result())

    def commit(self) -> None:
        assert self._open, "commit after commit or abort"
        c, bucket, key = self._client, self._bucket, self._key
        if self._upload_id is None:
            body, attributes = bytes(self._buffer), self._attributes
            where = f"write {self._where()}"
            self._run(where, lambda: c.put_object(Bucket=bucket, Key=key, Body=body, **attributes))
        else:
            if self._buffer:
                self._send(len(self._buffer))
            self._settle()
            parts, upload_id = self._parts, self._upload_id
            self._run(
                f"finish uploading {self._where()}",
                lambda: c.complete_multipart_upload(
                    Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
                ),
            )
        self._close()

    def _close(self) -> None:
        self._open = False
        self._buffer = bytearray()
        if self._sender is not None:
            self._sender.shutdown(wait=True)
            self._sender = None

    def abort(self) -> None:
        if not self._open:
            return
        with contextlib.suppress(TaskFailed):  # the upload is dropped anyway
            self._settle()
        self._close()
        if self._upload_id is not None:
            try:
                self._client.abort_multipart_upload(
                    Bucket=self._bucket, Key=self._key, UploadId=self._upload_id
                )
            except (ClientError, BotoCoreError) as exc:  # the store expires it; say so and go on
                log.warning("%s", redact(f"could not abort the upload of {self._where()}: {exc}"))
