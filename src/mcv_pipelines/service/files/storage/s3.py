"""``s3://BUCKET[/PREFIX]``: tasks' files in an S3-compatible object store (boto3: only s3 URLs load it).

Keys are ``PREFIX/tasks/<task_id>/<filename>``. Writes stream as multipart uploads of PART_SIZE parts
(one part filling while the one before is sent, no temporary copy of the whole file); reads stream
``get_object`` with a Range. botocore's exceptions become StorageError where they are raised, with
the operation and the object named and the credentials (registered with mcv_pipelines.redact) never
shown. Every call rides through transient faults (the server away, a 5xx) for ``retry_for`` seconds
(s3_upload.call); a read cut mid-stream goes on from where it stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from mcv_pipelines.redact import redact
from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.files.storage.base import CHUNK, Storage, StorageError, Writer
from mcv_pipelines.service.files.storage.s3_read import object_chunks
from mcv_pipelines.service.files.storage.s3_upload import (
    PART_SIZE,
    MultipartWriter,
    call,
)

__all__ = ["PART_SIZE", "S3Storage"]

_COPY_PART = 64 * 1024 * 1024


class S3Storage(Storage):
    def __init__(
        self, bucket: str, prefix: str = "", endpoint: str | None = None, retry_for: float = 0.0
    ) -> None:
        self.bucket = bucket
        self.retry_for = retry_for
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
        return MultipartWriter(self._client, self.bucket, self.key(task_id, filename), self.retry_for)

    def put_file(self, task_id: str, filename: str, path: Path) -> None:
        with path.open("rb") as source:
            self.put_stream(task_id, filename, iter(lambda: source.read(CHUNK), b""))

    def copy(
        self, task_id: str, filename: str, to_task_id: str, to_filename: str, size: int | None = None
    ) -> None:
        source = {"Bucket": self.bucket, "Key": self.key(task_id, filename)}
        target, c = self.key(to_task_id, to_filename), self._client
        what = f"copy {self._where(task_id, filename)} to s3://{self.bucket}/{target}"
        if size is not None and size < _COPY_PART:
            # One CopyObject: boto3's managed copy would first HEAD the object and start a pool of
            # threads, to learn what the caller already knows.
            bucket = self.bucket
            call(what, lambda: c.copy_object(CopySource=source, Bucket=bucket, Key=target), self.retry_for)
            return
        # Server-side: one CopyObject, or UploadPartCopy of 64 MiB parts for a large file.
        config = TransferConfig(
            multipart_threshold=_COPY_PART, multipart_chunksize=_COPY_PART, max_concurrency=4
        )
        call(what, lambda: c.copy(source, self.bucket, target, Config=config), self.retry_for)

    def read(self, task_id: str, filename: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        key, where = self.key(task_id, filename), f"read {self._where(task_id, filename)}"
        first = self._open(key, start, end, where)  # FileNotFoundError before the first chunk
        return object_chunks(lambda at: self._open(key, at, end, where), start, where, self.retry_for, first)

    def _open(self, key: str, start: int, end: int | None, where: str) -> Any:
        wanted = f"bytes={start}-{'' if end is None else end}"
        c = self._client
        return call(where, lambda: c.get_object(Bucket=self.bucket, Key=key, Range=wanted), self.retry_for)[
            "Body"
        ]

    def size(self, task_id: str, filename: str) -> int | None:
        key, c = self.key(task_id, filename), self._client
        try:
            where = f"look up {self._where(task_id, filename)}"
            head = call(where, lambda: c.head_object(Bucket=self.bucket, Key=key), self.retry_for)
        except FileNotFoundError:
            return None
        return int(head["ContentLength"])

    def delete_task(self, task_id: str) -> None:
        prefix, c = self.key(task_id), self._client
        where = f"delete s3://{self.bucket}/{prefix}"
        paginator = c.get_paginator("list_objects_v2")
        pages = call(
            where, lambda: list(paginator.paginate(Bucket=self.bucket, Prefix=prefix)), self.retry_for
        )
        for page in pages:
            self._delete_keys(where, [{"Key": item["Key"]} for item in page.get("Contents", [])])

    def _delete_keys(self, where: str, keys: list[dict[str, str]]) -> None:
        if keys:
            c, delete = self._client, {"Objects": keys, "Quiet": True}
            call(where, lambda: c.delete_objects(Bucket=self.bucket, Delete=delete), self.retry_for)

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
