"""The one contract every kind of caller's storage implements (S3, and the kinds to come).

A store is opened from a task's payload for the length of one task. Above it, transfer.py knows
only these few calls: list a prefix, read an object as a stream, write a stream with its attributes
and commit or abort. Every call raises TaskFailed with one of the codes of errors.py, its message
naming the bucket or host, never a credential.
"""

from __future__ import annotations

import mimetypes
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcv_pipelines.service.engines.url_guard import UrlGuard
from mcv_pipelines.service.files.storage.base import Writer
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors

__all__ = ["CallerStore", "Entry", "StoreSettings", "Writer", "content_type", "endpoint_problem"]


@dataclass(frozen=True)
class StoreSettings:
    """What the operator decides for every caller's store: the address guard (None: any address,
    the embedded default) and how long a call rides through transient faults."""

    guard: UrlGuard | None = None
    retry_for: float = 20.0
    known_hosts: str = ""  # SFTP: a known_hosts file pinning servers' keys ("": accept on first use)
    gcs_endpoint: str = "https://storage.googleapis.com"  # Google Cloud Storage: the JSON API's root
    gcs_token_uri: str = "https://oauth2.googleapis.com/token"  # noqa: S105 (an address: the token endpoint)
    azure_blob_endpoint: str = ""  # Azure Blob: a URL template with {account} ("": Azure's public one)


def endpoint_problem(template: str) -> str | None:
    """Why an operator's Azure Blob endpoint template cannot be used, or None (here, so that the CLI
    checks it without loading Azure's client)."""
    parts = urlsplit(template.replace("{account}", "account"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http(s) URL such as https://{account}.blob.core.windows.net"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "expected no query, fragment or credentials in the URL"
    return None


def content_type(filename: str) -> str:
    """The type a file's name says (one guess for every kind), application/octet-stream if none."""
    return mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"


@dataclass(frozen=True)
class Entry:
    """One object found under a prefix."""

    key: str
    size: int


class CallerStore(ABC):
    """A caller's bucket, container or server, opened with the task's credentials."""

    where: str  # for messages: "S3 bucket 'media' at s3.eu-central-1.amazonaws.com"
    secrets: errors.Secrets  # the task's credentials (and tokens), hidden from every message

    @abstractmethod
    def list(self, prefix: str) -> Iterator[Entry]:
        """Every object whose key starts with ``prefix``, in key order (directory markers left out)."""

    @abstractmethod
    def read(self, key: str) -> Iterator[bytes]:
        """The object's bytes in chunks; fails before the first chunk when it is not there."""

    @abstractmethod
    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        """A stream that becomes the object ``key`` on commit, stored with the task's attributes
        (``filename``: the file's own name, for what is derived from it, such as a content type;
        ``size``: the bytes that will come, when known, for a store that writes large files apart)."""

    @abstractmethod
    def location(self, key: str) -> str:
        """Where an object is, as a user writes it: ``s3://bucket/key``."""

    def refused(
        self,
        what: str,
        said: str,
        detail: str = "",
        *,
        denied: bool = False,
        no_bucket: bool = False,
        no_file: bool = False,
        busy: bool = False,
        hint: str = "",
    ) -> TaskFailed:
        """The task's failure for a call the store refused, every kind's mapping of its answer: ``said``
        is its status or code ("403", "NoSuchKey"), ``detail`` its message; the flags say what it means
        (``hint``: what to check when the credentials were refused)."""
        if denied:
            message = f"The {self.where} refused the credentials to {what} ({said}): {hint}."
            return self.secrets.failed(errors.ACCESS_DENIED, message)
        if no_bucket:
            return self.secrets.failed(errors.BUCKET_NOT_FOUND, f"There is no {self.where} ({said}).")
        if no_file:
            return self.secrets.failed(
                errors.FILE_NOT_FOUND, f"Could not {what}: no such object in the {self.where}."
            )
        if busy:
            return self.secrets.failed(errors.FAILED, f"The {self.where} failed to {what}: {said}.")
        detail = f": {detail}" if detail else ""
        return self.secrets.failed(errors.FAILED, f"The {self.where} refused to {what}: {said}{detail}")

    def notes(self) -> dict[str, Any]:
        """What the task's result says besides its files (an SFTP server's host key)."""
        return {}

    @abstractmethod
    def close(self) -> None:
        """Release connections."""
