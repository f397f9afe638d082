"""import/azure/blob and export/azure/blob: a container of a caller's storage account, on azure-storage-blob.

Authorized by the account's key (the SDK's Shared Key) or the caller's SAS token, at the operator's
endpoint template (``--azure-blob-endpoint``), so a task names an account, never a host. The SDK's
transport is azure-core's RequestsTransport over pinning.session and its retries are off: each call
goes through retry.py's policy.

A blob is read by a GET of our own through the pinned session (authorized by the caller's SAS, or a
read-only SAS the SDK signs with the key), so that a cut read goes on from the byte reached, If-Match
the version begun: the SDK's downloader would ask for its whole chunk again, by itself.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

import requests
from azure.core.exceptions import HttpResponseError, ServiceRequestError, ServiceResponseError
from azure.core.pipeline.transport import RequestsTransport
from azure.storage.blob import (
    BlobBlock,
    ContainerClient,
    ContainerSasPermissions,
    ContentSettings,
    generate_container_sas,
)
from urllib3.exceptions import HTTPError as CutRead

from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.files.storage.parts import PartWriter
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, pinning, retry
from mcv_pipelines.service.work.caller_storage.contract import (
    CallerStore,
    Entry,
    StoreSettings,
    Writer,
    content_type,
)

__all__ = ["BLOCK", "DEFAULT_ENDPOINT", "AzureBlobStore", "BlockWriter"]

_T = TypeVar("_T")
BLOCK = 4 * 1024 * 1024  # a staged block's size: one is held in memory while it is sent
_PAGE = "5000"  # blobs a listing page holds at most (Azure's own limit)
DEFAULT_ENDPOINT = "https://{account}.blob.core.windows.net"
_ACCOUNT = re.compile(r"^[a-z0-9]{3,24}$")  # Azure's rule for account names
_META_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # metadata names are C# identifiers
# Every refusal of the credentials is a 403 (AuthenticationFailed, AuthorizationPermissionMismatch,
# AccountIsDisabled, ...) but a malformed Authorization header's.
_DENIED = frozenset({"InvalidAuthenticationInfo"})
# No such account (Azurite says so; Azure's own names simply do not resolve) or container.
_NO_CONTAINER = frozenset({"ContainerNotFound", "ResourceNotFound", "ContainerBeingDeleted"})
_BUSY = frozenset({"ServerBusy", "InternalError", "OperationTimedOut"})
_UNREACHABLE = (ServiceRequestError, ServiceResponseError, requests.ConnectionError, requests.Timeout)


def _transient(exc: Exception) -> bool:
    if isinstance(exc, HttpResponseError) and exc.status_code is not None:
        return exc.status_code in retry.BUSY or _code(exc) in _BUSY
    return isinstance(exc, (*_UNREACHABLE, retry.Busy))


class AzureBlobStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        key = str(payload.get("storage_access_key") or "").strip()
        sas = str(payload.get("sas_token") or "").strip().removeprefix("?")
        account = str(payload["storage_account"])
        self.container = str(payload["container"])
        if not key and not sas:
            raise TaskFailed("INVALID_TASK", "storage_access_key or sas_token is required.")
        if not _ACCOUNT.match(account):
            raise TaskFailed(
                "INVALID_TASK",
                f"The storage account {account!r} is not an Azure account name (3 to 24 lowercase "
                "letters and digits).",
            )
        self.metadata = _metadata(payload.get("metadata"))
        self.base = (
            (settings.azure_blob_endpoint or DEFAULT_ENDPOINT).replace("{account}", account).rstrip("/")
        )
        self.host = urlsplit(self.base).netloc
        self.where = f"Azure container {self.container!r} of account {account!r} at {self.host}"
        self.retry_for = settings.retry_for
        self.secrets = errors.Secrets([key, sas])
        addresses = pinning.Addresses(settings.guard)
        self.call("reach it", lambda: addresses.check(self.base))  # each request checked again, there
        self._read_sas = sas or _sas_for_reading(account, self.container, key)
        # A message could show a SAS's signature alone, decoded.
        self.secrets.add(self._read_sas, *parse_qs(self._read_sas).get("sig", []))
        self.http = pinning.session(addresses, pool)
        self.client = ContainerClient(
            self.base,
            self.container,
            credential={"account_name": account, "account_key": key} if key else sas,
            transport=RequestsTransport(session=self.http, session_owner=False, use_env_settings=False),
            retry_total=0,  # retry.py's policy is the one
            connection_timeout=pinning.TIMEOUT[0],
            read_timeout=pinning.TIMEOUT[1],
        )

    def call(self, what: str, action: Callable[[], _T]) -> _T:
        """``action()`` (an SDK call) through the retry policy, its failures as the task's."""
        try:
            return retry.guarded(
                what, action, self.retry_for, _transient, self.secrets, "the Azure Blob endpoint",
                f"the {self.where}", _UNREACHABLE,
            )  # fmt: skip
        except HttpResponseError as exc:
            lines = str(exc.message or "").strip().splitlines()
            raise self._refusal(exc.status_code or 0, _code(exc), lines[0] if lines else "", what) from None

    def _refusal(self, status: int, code: str, message: str, what: str) -> TaskFailed:
        return self.refused(
            what,
            code or str(status),
            message,
            denied=code in _DENIED or status in (401, 403),
            no_bucket=code in _NO_CONTAINER,
            no_file=code == "BlobNotFound" or (status == 404 and not code),
            busy=status >= 500 or code in _BUSY,
            hint="check storage_access_key or sas_token (its permissions, expiry and resource)",
        )

    def list(self, prefix: str) -> Iterator[Entry]:
        # A page that failed is asked for again: the SDK's page iterator moves on only once one arrived.
        what = f"list the blobs under {prefix!r}"
        pages = self.client.list_blobs(name_starts_with=prefix, results_per_page=int(_PAGE)).by_page()
        while (page := self.call(what, lambda: next(pages, None))) is not None:
            for blob in page:
                if not blob.name.endswith("/"):  # a "directory" marker holds no file
                    yield Entry(blob.name, int(blob.size or 0))

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        first = self._get(key, 0, "", what)
        etag = first.headers.get("etag", "")
        return retry.resumed(
            lambda position: pinning.chunks(self._get(key, position, etag, what), CHUNK),
            pinning.chunks(first, CHUNK),
            lambda exc: isinstance(exc, (CutRead, *_UNREACHABLE)),
            self.retry_for,
            lambda exc: self.secrets.failed(
                errors.UNREACHABLE, f"Could not {what}: the connection was cut ({exc})."
            ),
        )

    def _get(self, key: str, position: int, etag: str, what: str) -> requests.Response:
        """The blob's bytes from ``position`` (of the version ``etag``), streamed."""
        headers = {"Range": f"bytes={position}-", "If-Match": etag} if position else {}
        url = f"{self.location(key)}?{self._read_sas}"
        answer = self.call(
            what,
            lambda: retry.not_busy(self.http.get(url, headers=headers, stream=True, timeout=pinning.TIMEOUT)),
        )
        if answer.status_code < 300:
            return answer
        answer.close()
        raise self._refusal(answer.status_code, answer.headers.get("x-ms-error-code", ""), "", what)

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        return BlockWriter(self, key, ContentSettings(content_type=content_type(filename)))

    def location(self, key: str) -> str:
        return f"{self.base}/{quote(self.container, safe='')}/{quote(key, safe='/')}"

    def close(self) -> None:
        self.client.close()
        self.http.close()


class BlockWriter(PartWriter):
    """A block blob written BLOCK bytes at a time (parts.py: one block staged while the next fills),
    then one commit_block_list naming them all (with the blob's settings), which is when the blob
    appears. A file under one block is one upload_blob.

    Aborted, nothing is committed: the blocks staged stay uncommitted (invisible) until Azure drops
    them, within a week, or the blob is next committed.
    """

    def __init__(self, store: AzureBlobStore, key: str, settings: ContentSettings) -> None:
        super().__init__(BLOCK, "mcv-azure-block")
        self._store = store
        self._blob = store.client.get_blob_client(key)
        self._options: dict[str, Any] = {"content_settings": settings, "metadata": store.metadata}
        self._what = f"write {store.location(key)}"
        self._tag = secrets.token_hex(6)  # block ids of this upload only: another upload's are not ours

    def _whole(self, body: bytes) -> None:
        self._store.call(
            self._what, functools.partial(self._blob.upload_blob, body, overwrite=True, **self._options)
        )

    def _part(self, number: int, part: bytes) -> BlobBlock:
        block_id = f"{self._tag}-{number - 1:06d}"  # every id of a blob has the same length
        self._store.call(self._what, functools.partial(self._blob.stage_block, block_id, part))
        return BlobBlock(block_id)

    def _finish(self, parts: list[Any]) -> None:
        self._store.call(self._what, functools.partial(self._blob.commit_block_list, parts, **self._options))


def _code(exc: HttpResponseError) -> str:
    """The storage error code the SDK found in an error answer (its x-ms-error-code): where the SDK
    made it a StorageErrorCode, its value ("AuthenticationFailed"), which str() would not give."""
    code = getattr(exc, "error_code", None) or ""
    return str(getattr(code, "value", code))


def _sas_for_reading(account: str, container: str, key: str) -> str:
    """A read-only SAS of the container for a day, signed by the SDK with the account's key."""
    try:
        base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        raise TaskFailed(
            errors.ACCESS_DENIED,
            f"storage_access_key is not an account key (base64): it cannot sign for {account!r}.",
        ) from None
    now = datetime.now(UTC)
    return generate_container_sas(
        account,
        container,
        account_key=key,
        permission=ContainerSasPermissions(read=True),
        start=now - timedelta(minutes=5),  # a store's clock a little behind
        expiry=now + timedelta(days=1),
    )


def _metadata(value: object) -> dict[str, str]:
    """export/azure/blob's ``metadata`` as a blob stores it."""
    if not value:
        return {}
    if not isinstance(value, Mapping):
        raise TaskFailed("INVALID_TASK", "The metadata must be an object of names to values.")
    found: dict[str, str] = {}
    for name, item in value.items():
        text = str(item).strip()
        if not _META_NAME.match(str(name)):
            raise TaskFailed(
                "INVALID_TASK",
                f"The metadata name {name!r} cannot be stored on a blob: use letters, digits and _, "
                "not starting with a digit.",
            )
        if not text.isascii() or any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise TaskFailed(
                "INVALID_TASK", f"The metadata value of {name!r} must be ASCII text on one line (Azure's)."
            )
        found[str(name)] = text
    return found
