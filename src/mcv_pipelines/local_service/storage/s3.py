"""``s3://BUCKET[/PREFIX]``: tasks' files in an S3-compatible object store (boto3, imported here only).

Keys are ``PREFIX/tasks/<task_id>/<filename>``. Writes stream as multipart uploads of PART_SIZE parts
(one part filling while the one before is sent, no temporary copy of the whole file); reads stream
``get_object`` with a Range. botocore's exceptions become StorageError where they are raised, with
the operation and the object named and the credentials (registered with mcv_pipelines.redact) never
shown.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import boto3
from boto3.exceptions import Boto3Error
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from mcv_pipelines.local_service.paths import safe_filename
from mcv_pipelines.local_service.storage.base import CHUNK, Storage, StorageError, Writer
from mcv_pipelines.redact import redact

__all__ = ["PART_SIZE", "S3Storage"]

log = logging.getLogger(__name__)
PART_SIZE = 8 * 1024 * 1024  # S3 wants parts of at least 5 MiB (but the last)
_COPY_PART = 64 * 1024 * 1024
_T = TypeVar("_T")
_MISSING = frozenset({"404", "NoSuchKey", "NotFound"})


def _call(what: str, action: Callable[[], _T]) -> _T:
    """``action()``, with botocore's exceptions turned into StorageError naming ``what``."""
    try:
        return action()
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code = str(error.get("Code") or "error")
        if code in _MISSING:
            raise FileNotFoundError(what) from None
        detail = str(error.get("Message") or code)
        raise StorageError(redact(f"S3 refused to {what}: {code}: {detail}")) from None
    except (BotoCoreError, Boto3Error) as exc:
        raise StorageError(redact(f"Could not {what}: {exc}")) from None


class _MultipartWriter(Writer):
    """Buffers up to one part; the first full part starts a multipart upload, small files are one PUT.

    A full part is sent from a thread of its own while the next one fills, so receiving and sending
    overlap; at most one part is in flight, so memory stays at about two parts.
    """

    def __init__(self, client: Any, bucket: str, key: str) -> None:
        self._client, self._bucket, self._key = client, bucket, key
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
            with memoryview(self._buffer) as view:
                part = bytes(view[:PART_SIZE])  # one copy; the buffer keeps only the rest
            del self._buffer[:PART_SIZE]
            self._send(part)

    def _send(self, part: bytes) -> None:
        """Hand ``part`` to the sender thread once the part before it has arrived."""
        self._settle()
        if self._upload_id is None:
            c, bucket, key = self._client, self._bucket, self._key
            started = _call(
                f"start uploading {self._where()}", lambda: c.create_multipart_upload(Bucket=bucket, Key=key)
            )
            self._upload_id = str(started["UploadId"])
            self._sender = ThreadPoolExecutor(1, thread_name_prefix="mcv-s3-part")
        assert self._sender is not None
        self._in_flight = self._sender.submit(self._upload_part, len(self._parts) + 1, part)

    def _upload_part(self, number: int, part: bytes) -> dict[str, Any]:
        c, bucket, key, upload_id = self._client, self._bucket, self._key, self._upload_id
        sent = _call(
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
            body = bytes(self._buffer)
            _call(f"write {self._where()}", lambda: c.put_object(Bucket=bucket, Key=key, Body=body))
        else:
            if self._buffer:
                self._send(bytes(self._buffer))
            self._settle()
            parts, upload_id = self._parts, self._upload_id
            _call(
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
        with contextlib.suppress(StorageError):  # the upload is dropped anyway
            self._settle()
        self._close()
        if self._upload_id is not None:
            try:
                self._client.abort_multipart_upload(
                    Bucket=self._bucket, Key=self._key, UploadId=self._upload_id
                )
            except (ClientError, BotoCoreError) as exc:  # the store expires it; say so and go on
                log.warning("%s", redact(f"could not abort the upload of {self._where()}: {exc}"))


class S3Storage(Storage):
    def __init__(self, bucket: str, prefix: str = "", endpoint: str | None = None) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.endpoint = endpoint
        self.url = f"s3://{bucket}/{self.prefix}".rstrip("/")
        config = Config(
            connect_timeout=5,
            read_timeout=60,
            retries={"max_attempts": 3, "mode": "standard"},
            s3={"addressing_style": "path"},
            # No extra CRC over every part (it halved upload speed): over http the SigV4 payload hash
            # covers the body, over https TLS does.
            request_checksum_calculation="when_required",
        )
        # A readiness probe asks once and briefly: no retries, short timeouts.
        quick = config.merge(Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 1}))
        try:
            session = boto3.session.Session()
            self._client: Any = session.client("s3", endpoint_url=endpoint or None, config=config)
            self._probe: Any = session.client("s3", endpoint_url=endpoint or None, config=quick)
        except (BotoCoreError, ValueError) as exc:
            raise StorageError(redact(f"Cannot use {self.url}: {exc}")) from None

    def key(self, task_id: str, filename: str = "") -> str:
        path = f"tasks/{safe_filename(task_id)}/{safe_filename(filename) if filename else ''}"
        return f"{self.prefix}/{path}" if self.prefix else path

    def _where(self, task_id: str, filename: str) -> str:
        return f"s3://{self.bucket}/{self.key(task_id, filename)}"

    def writer(self, task_id: str, filename: str) -> Writer:
        return _MultipartWriter(self._client, self.bucket, self.key(task_id, filename))

    def put_file(self, task_id: str, filename: str, path: Path) -> None:
        with path.open("rb") as source:
            self.put_stream(task_id, filename, iter(lambda: source.read(CHUNK), b""))

    def copy(self, task_id: str, filename: str, to_task_id: str, to_filename: str) -> None:
        source = {"Bucket": self.bucket, "Key": self.key(task_id, filename)}
        target, c = self.key(to_task_id, to_filename), self._client
        # Server-side: one CopyObject, or UploadPartCopy of 64 MiB parts for a large file.
        config = TransferConfig(
            multipart_threshold=_COPY_PART, multipart_chunksize=_COPY_PART, max_concurrency=4
        )
        what = f"copy {self._where(task_id, filename)} to s3://{self.bucket}/{target}"
        _call(what, lambda: c.copy(source, self.bucket, target, Config=config))

    def read(self, task_id: str, filename: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        key = self.key(task_id, filename)
        wanted = f"bytes={start}-{'' if end is None else end}"
        c = self._client
        answer = _call(
            f"read {self._where(task_id, filename)}",
            lambda: c.get_object(Bucket=self.bucket, Key=key, Range=wanted),
        )
        return self._chunks(answer["Body"], self._where(task_id, filename))

    @staticmethod
    def _chunks(body: Any, where: str) -> Iterator[bytes]:
        try:
            while True:
                chunk = _call(f"read {where}", lambda: body.read(CHUNK))
                if not chunk:
                    return
                yield chunk
        finally:
            body.close()

    def size(self, task_id: str, filename: str) -> int | None:
        key, c = self.key(task_id, filename), self._client
        try:
            where = f"look up {self._where(task_id, filename)}"
            head = _call(where, lambda: c.head_object(Bucket=self.bucket, Key=key))
        except FileNotFoundError:
            return None
        return int(head["ContentLength"])

    def delete_task(self, task_id: str) -> None:
        prefix, c = self.key(task_id), self._client
        where = f"delete s3://{self.bucket}/{prefix}"
        paginator = c.get_paginator("list_objects_v2")
        pages = _call(where, lambda: list(paginator.paginate(Bucket=self.bucket, Prefix=prefix)))
        for page in pages:
            self._delete_keys(where, [{"Key": item["Key"]} for item in page.get("Contents", [])])

    def _delete_keys(self, where: str, keys: list[dict[str, str]]) -> None:
        if keys:
            c, delete = self._client, {"Objects": keys, "Quiet": True}
            _call(where, lambda: c.delete_objects(Bucket=self.bucket, Delete=delete))

    def fetch(self, task_id: str, filename: str, target_dir: Path) -> Path | None:
        target = target_dir / safe_filename(filename)
        target_dir.mkdir(parents=True, exist_ok=True)
        try:
            with target.open("wb") as handle:
                for chunk in self.read(task_id, filename):
                    handle.write(chunk)
        except FileNotFoundError:
            target.unlink(missing_ok=True)
            return None
        return target

    def local_path(self, task_id: str, filename: str) -> Path | None:
        return None

    def ping(self) -> bool:
        try:
            self._probe.head_bucket(Bucket=self.bucket)
        except (ClientError, BotoCoreError):
            return False
        return True

    def close(self) -> None:
        self._client.close()
        self._probe.close()
