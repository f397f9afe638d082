"""Where tasks' files live: ``file:///DIR`` (default: the data directory) or ``s3://BUCKET[/PREFIX]``.

``open_storage`` turns the ``--storage`` URL into a Storage; boto3 is imported only for s3:// URLs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.files.storage.base import Storage, StorageError, Writer
from mcv_pipelines.service.files.storage.directory import DirectoryStorage

__all__ = [
    "CREDENTIAL_VARIABLES",
    "DirectoryStorage",
    "Storage",
    "StorageError",
    "Writer",
    "check_s3_endpoint",
    "check_storage_url",
    "open_storage",
]

EXPECTED = "expected file:///ABSOLUTE/DIR or s3://BUCKET[/PREFIX]"
CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def check_storage_url(url: str) -> None:
    """ValueError saying what is expected when ``url`` is not a storage URL."""
    _parse(url)


def open_storage(
    url: str | None, data_dir: Path, endpoint: str | None = None, retry_for: float = 0.0
) -> Storage:
    """The store named by ``url`` (None or "": the data directory). ``endpoint`` (else the
    AWS_ENDPOINT_URL variable) is the S3 server's address; credentials come from the AWS_* variables
    (or boto3's other usual places) and are registered as secrets before any request is made.
    ``retry_for``: how long a call keeps trying through transient faults (the service: 60 s)."""
    if not url:
        return DirectoryStorage(data_dir)
    kind, where, prefix = _parse(url)
    if kind == "file":
        return DirectoryStorage(Path(where))
    for name in CREDENTIAL_VARIABLES:
        value = os.environ.get(name)
        if value:
            register_secret(value)
    endpoint = endpoint or os.environ.get("AWS_ENDPOINT_URL") or None
    if endpoint:
        check_s3_endpoint(endpoint)
    try:
        from mcv_pipelines.service.files.storage.s3 import S3Storage
    except ImportError as exc:  # a runtime dependency, but say what to do if it went missing
        raise StorageError(f"s3:// storage needs boto3 ({exc}); install it: pip install boto3") from None
    return S3Storage(where, prefix, endpoint, retry_for)


def _parse(url: str) -> tuple[str, str, str]:
    """(kind, directory or bucket, prefix) of a storage URL."""
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r}: no ?query or #fragment allowed; {EXPECTED}")
    if parts.scheme == "file":
        path = unquote(parts.path)
        if parts.netloc not in ("", "localhost") or not path.startswith("/"):
            raise ValueError(f"{url!r}: {EXPECTED} (three slashes: file:///srv/mcv)")
        return "file", path, ""
    if parts.scheme == "s3":
        if "@" in parts.netloc:
            raise ValueError(
                f"{url.split('@')[-1]!r}: credentials do not belong in the URL; set AWS_ACCESS_KEY_ID "
                "and AWS_SECRET_ACCESS_KEY instead"
            )
        if not _BUCKET.fullmatch(parts.netloc):
            raise ValueError(
                f"{url!r}: {EXPECTED}; the bucket name is 3-63 lowercase letters, digits, dots or hyphens"
            )
        return "s3", parts.netloc, unquote(parts.path).strip("/")
    raise ValueError(f"{url!r}: {EXPECTED}")


def check_s3_endpoint(endpoint: str) -> None:
    """ValueError saying what is expected when ``endpoint`` is not an S3 server's URL."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"S3 endpoint {endpoint!r}: expected http(s)://HOST[:PORT]")
    if parts.username or parts.password:
        raise ValueError(
            "the S3 endpoint must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
