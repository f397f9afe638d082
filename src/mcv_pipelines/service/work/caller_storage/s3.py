"""import/s3 and export/s3: a caller's bucket on AWS or any S3-compatible store.

Reads stream ``get_object`` (resumed where a cut connection stopped), writes stream as multipart
uploads of 8 MiB parts with the task's attributes, both from the service's own S3 store
(files/storage). botocore's errors are mapped where they are raised onto errors.py's codes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

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

from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.files.storage.s3_upload import MultipartWriter
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, pinning, retry
from mcv_pipelines.service.work.caller_storage.contract import (
    CallerStore,
    Entry,
    StoreSettings,
    Writer,
    content_type,
)
from mcv_pipelines.service.work.caller_storage.s3_client import endpoint_for, pin, s3_client

__all__ = ["S3Store"]

_T = TypeVar("_T")
_CREDENTIALS = frozenset(
    {
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "AccessDenied",
        "InvalidToken",
        "ExpiredToken",
        "InvalidSecurity",
        "AuthorizationHeaderMalformed",
        "InvalidClientTokenId",
        "403",
    }
)
_NO_BUCKET = frozenset({"NoSuchBucket"})
_NO_KEY = frozenset({"NoSuchKey", "404", "NotFound"})
_BUSY = frozenset({"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "503", "500"})
_UNREACHABLE = (EndpointConnectionError, ConnectTimeoutError)
# The server away, or the connection cut: worth another try (retry.py), a cut read resumed.
_CUT = (
    *_UNREACHABLE,
    ConnectionClosedError,
    ReadTimeoutError,
    ResponseStreamingError,
    IncompleteReadError,
)
# export/s3's options and the put_object / create_multipart_upload arguments they become
_ATTRIBUTES = {
    "acl": "ACL",
    "cache_control": "CacheControl",
    "content_disposition": "ContentDisposition",
    "server_side_encryption": "ServerSideEncryption",
}
_ENDPOINT = re.compile(r"^https?://[^/?#@\s]+/?$")


class S3Store(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        self.secrets = errors.Secrets(
            payload.get(name) for name in ("access_key_id", "secret_access_key", "session_token")
        )
        self.bucket = str(payload["bucket"])
        self.payload = payload
        self.retry_for = settings.retry_for
        endpoint = str(payload.get("endpoint") or endpoint_for(str(payload["region"])))
        if not _ENDPOINT.match(endpoint):
            raise errors.Secrets([]).failed(
                errors.FAILED,
                f"The S3 endpoint {urlsplit(endpoint).hostname or '?'} is not usable: expected "
                "http(s)://HOST[:PORT], without a path or credentials.",
            )
        self.host = urlsplit(endpoint).netloc
        self.where = f"S3 bucket {self.bucket!r} at {self.host}"
        self._addresses = pinning.Addresses(settings.guard)
        self._do("reach it", lambda: self._addresses.check(endpoint))
        try:
            self._client = s3_client(payload, endpoint, pool)
        except (BotoCoreError, ValueError) as exc:
            raise self.secrets.failed(errors.FAILED, f"Cannot use the {self.where}: {exc}") from None
        if settings.guard is not None:  # every request, redirects to another region's host included
            self._client.meta.events.register("before-send.s3", self._guard_request)
            pin(self._client, self._addresses)  # and its sockets go to what the guard checked

    def _guard_request(self, request: Any, **_: Any) -> None:
        self._addresses.check(str(request.url))  # a refusal comes out of the call, for _do to map

    def _do(self, what: str, action: Callable[[], _T]) -> _T:
        """``action()`` through the retry policy, every failure mapped."""
        try:
            return retry.guarded(
                what, action, self.retry_for, _transient, self.secrets,
                "the S3 endpoint", f"the {self.where}", _UNREACHABLE,
            )  # fmt: skip
        except ClientError as exc:
            raise self._refusal(exc, what) from None
        except BotoCoreError as exc:
            raise self.secrets.failed(errors.FAILED, f"Could not {what}: {exc} ({self.where})") from None

    def _refusal(self, exc: ClientError, what: str) -> TaskFailed:
        code, status = _code(exc)
        return self.refused(
            what,
            code,
            str(exc.response.get("Error", {}).get("Message") or ""),
            denied=code in _CREDENTIALS,
            no_bucket=code in _NO_BUCKET,
            no_file=code in _NO_KEY,
            busy=status >= 500 or code in _BUSY,
            hint="check access_key_id, secret_access_key, session_token and the key's permissions",
        )

    def list(self, prefix: str) -> Iterator[Entry]:
        c, token = self._client, None
        while True:
            extra: dict[str, str] = {"ContinuationToken": token} if token else {}

            def page_of(extra: dict[str, str] = extra) -> dict[str, Any]:
                return dict(c.list_objects_v2(Bucket=self.bucket, Prefix=prefix, **extra))

            page = self._do(f"list the keys under {prefix!r}", page_of)
            for item in page.get("Contents", []):
                if not str(item["Key"]).endswith("/"):  # a "directory" marker holds no file
                    yield Entry(str(item["Key"]), int(item.get("Size") or 0))
            token = page.get("NextContinuationToken")
            if not page.get("IsTruncated") or not token:
                return

    def read(self, key: str) -> Iterator[bytes]:
        c, what = self._client, f"read {self.location(key)}"
        begun: dict[str, str] = {}  # resumed of the version begun (IfMatch its ETag): never two joined

        def open_at(position: int) -> Iterator[bytes]:
            wanted = {"Range": f"bytes={position}-", **begun} if position else {}
            answer = self._do(what, lambda: c.get_object(Bucket=self.bucket, Key=key, **wanted))
            if not position and answer.get("ETag"):
                begun["IfMatch"] = str(answer["ETag"])
            return _chunks(answer["Body"])

        return retry.resumed(
            open_at,
            open_at(0),
            lambda exc: isinstance(exc, (*_CUT, OSError)),
            self.retry_for,
            lambda exc: self.secrets.failed(errors.UNREACHABLE, f"Could not {what}: {exc} ({self.where})"),
        )

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        return MultipartWriter(
            self._client, self.bucket, key, self.retry_for, self.attributes(filename), self._do
        )

    def attributes(self, filename: str) -> dict[str, Any]:
        """export/s3's options as S3 stores them; content_type exactly as given, else guessed."""
        p = self.payload
        found: dict[str, Any] = {arg: str(p[name]) for name, arg in _ATTRIBUTES.items() if p.get(name)}
        found["ContentType"] = str(p.get("content_type") or content_type(filename))
        if p.get("metadata"):
            found["Metadata"] = {str(k): str(v) for k, v in dict(p["metadata"]).items()}
        if p.get("tagging"):
            found["Tagging"] = urlencode({str(k): str(v) for k, v in dict(p["tagging"]).items()})
        return found

    def location(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def close(self) -> None:
        self._client.close()


def _code(exc: ClientError) -> tuple[str, int]:
    """(error code, HTTP status) of a refusal."""
    code = str(exc.response.get("Error", {}).get("Code") or "error")
    return code, int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def _transient(exc: Exception) -> bool:
    if isinstance(exc, ClientError):
        code, status = _code(exc)
        return status >= 500 or code in _BUSY
    return isinstance(exc, _CUT)


def _chunks(body: Any) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(CHUNK)
    finally:
        body.close()
