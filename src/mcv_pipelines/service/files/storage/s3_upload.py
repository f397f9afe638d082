"""Calls to S3 with botocore's exceptions translated, and the streaming multipart writer of s3.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
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
from mcv_pipelines.service.files.storage.base import StorageError
from mcv_pipelines.service.files.storage.parts import PartWriter

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


class MultipartWriter(PartWriter):
    """An S3 object written in parts of PART_SIZE (parts.py): the first full part starts a multipart
    upload, a small file is one PUT; an aborted upload is aborted on the store too."""

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
        super().__init__(PART_SIZE, "mcv-s3-part")
        self._client, self._bucket, self._key = client, bucket, key
        self._attributes = dict(attributes or {})
        self._run: Runner = run or (lambda what, action: call(what, action, retry_for))
        self._upload_id: str | None = None

    def _where(self) -> str:
        return f"s3://{self._bucket}/{self._key}"

    def _whole(self, body: bytes) -> None:
        c, bucket, key, attributes = self._client, self._bucket, self._key, self._attributes
        self._run(
            f"write {self._where()}", lambda: c.put_object(Bucket=bucket, Key=key, Body=body, **attributes)
        )

    def _start(self) -> None:
        c, bucket, key, attributes = self._client, self._bucket, self._key, self._attributes
        started = self._run(
            f"start uploading {self._where()}",
            lambda: c.create_multipart_upload(Bucket=bucket, Key=key, **attributes),
        )
        self._upload_id = str(started["UploadId"])

    def _part(self, number: int, part: bytes) -> dict[str, Any]:
        c, bucket, key, upload_id = self._client, self._bucket, self._key, self._upload_id
        sent = self._run(
            f"upload part {number} of {self._where()}",
            lambda: c.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=part),
        )
        return {"PartNumber": number, "ETag": sent["ETag"]}

    def _finish(self, parts: list[Any]) -> None:
        c, bucket, key, upload_id = self._client, self._bucket, self._key, self._upload_id
        self._run(
            f"finish uploading {self._where()}",
            lambda: c.complete_multipart_upload(
                Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
            ),
        )

    def _drop(self) -> None:
        if self._upload_id is not None:
            try:
                self._client.abort_multipart_upload(
                    Bucket=self._bucket, Key=self._key, UploadId=self._upload_id
                )
            except (ClientError, BotoCoreError) as exc:  # the store expires it; say so and go on
                log.warning("%s", redact(f"could not abort the upload of {self._where()}: {exc}"))
