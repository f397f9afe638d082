"""import/azure/blob and export/azure/blob: a container of a caller's Azure storage account.

Authorized by the account's key (Shared Key) or a SAS token (azure_signing.py); the account's address
is the operator's endpoint template (``--azure-blob-endpoint``, public Azure by default), so a task
names an account, never a host. A prefix is listed page by page (List Blobs with its marker); a blob is
read as a stream, resumed where a cut connection stopped; a file is written in blocks of a few MiB
(Put Block) committed by one Put Block List carrying its content type and the task's ``metadata``,
so no file is ever whole in memory. A small file is a single Put Blob.
"""

from __future__ import annotations

import base64
import contextlib
import mimetypes
import re
import secrets
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, unquote
from xml.sax.saxutils import escape

import httpx

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.azure_client import AzureAccount, parse_xml
from mcv_pipelines.service.work.caller_storage.azure_signing import BadCredential, credential_of
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer

__all__ = ["BLOCK", "AzureBlobStore", "BlockWriter"]

BLOCK = 4 * 1024 * 1024  # a Put Block's size: one is held in memory while it is sent
_READ = 1024 * 1024
_PAGE = "5000"  # blobs a listing page holds at most (Azure's own limit)
_META_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # metadata names are C# identifiers


class AzureBlobStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        key = str(payload.get("storage_access_key") or "")
        sas = str(payload.get("sas_token") or "")
        self.secrets = errors.Secrets([key, sas, *_signatures(sas)])
        account = str(payload["storage_account"])
        self.container = str(payload["container"])
        if not key and not sas:
            raise TaskFailed("INVALID_TASK", "storage_access_key or sas_token is required.")
        try:
            credential = credential_of(account, key, sas)
        except BadCredential as exc:
            raise TaskFailed(errors.ACCESS_DENIED, f"{exc}: it cannot sign for {account!r}.") from None
        self.metadata = _metadata(payload.get("metadata"))
        self._account = AzureAccount(
            account,
            credential,
            endpoint=settings.azure_blob_endpoint,
            guard=settings.guard,
            retry_for=settings.retry_for,
            secrets=self.secrets,
            pool=pool,
        )
        self.where = f"Azure container {self.container!r} of account {account!r} at {self._account.host}"

    def list(self, prefix: str) -> Iterator[Entry]:
        marker = ""
        while True:
            query = [("restype", "container"), ("comp", "list"), ("prefix", prefix), ("maxresults", _PAGE)]
            if marker:
                query.append(("marker", marker))
            answer = self._account.send(
                "GET", self.where, f"list the blobs under {prefix!r}", self.container, query=query
            )
            root = parse_xml(answer.content)
            if root is None:
                raise self.secrets.failed(errors.FAILED, f"The {self.where} answered a listing, not XML.")
            for blob in root.iter("Blob"):
                name = _name(blob.find("Name"))
                if name and not name.endswith("/"):  # a "directory" marker holds no file
                    yield Entry(name, int(blob.findtext("Properties/Content-Length") or 0))
            marker = root.findtext("NextMarker") or ""
            if not marker:
                return

    def read(self, key: str) -> Iterator[bytes]:
        what = f"read {self.location(key)}"
        first = self._account.send("GET", self.where, what, self.container, key, stream=True)
        return self._chunks(key, what, first)

    def _chunks(self, key: str, what: str, answer: httpx.Response) -> Iterator[bytes]:
        """The blob's bytes as stored (no content decoding); a cut read goes on from where it stopped,
        from the same version of the blob, for up to ``retry_for`` seconds."""
        position, deadline = 0, time.monotonic() + self._account.retry_for
        etag = answer.headers.get("etag", "")
        try:
            while True:
                try:
                    for chunk in answer.iter_raw(_READ):
                        position += len(chunk)
                        yield chunk
                    return
                except httpx.TransportError as exc:
                    answer.close()
                    if time.monotonic() > deadline:
                        raise self.secrets.failed(
                            errors.UNREACHABLE, f"Could not {what}: the connection was cut ({exc})."
                        ) from None
                    headers = {"Range": f"bytes={position}-", **({"If-Match": etag} if etag else {})}
                    answer = self._account.send(
                        "GET", self.where, what, self.container, key, headers=headers, stream=True
                    )
        finally:
            answer.close()

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        guessed = mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"
        headers = {"x-ms-blob-content-type": guessed}
        headers.update({f"x-ms-meta-{name}": value for name, value in self.metadata.items()})
        return BlockWriter(self._account, self.where, self.container, key, headers, self.location(key))

    def location(self, key: str) -> str:
        return self._account.url(self.container, key)

    def close(self) -> None:
        self._account.close()


class BlockWriter(Writer):
    """A block blob written BLOCK bytes at a time: each full block is sent from a thread of its own
    while the next one fills (one in flight, so memory stays at about two blocks), and commit names
    them all in one Put Block List (with the blob's headers), which is when the blob appears.

    Aborted, nothing is committed: the blocks sent stay uncommitted (invisible) until Azure drops
    them, within a week, or the blob is next committed. A file under one block is one Put Blob.
    """

    def __init__(
        self,
        account: AzureAccount,
        where: str,
        container: str,
        blob: str,
        headers: Mapping[str, str],
        location: str,
    ) -> None:
        self._account, self._where, self._container, self._blob = account, where, container, blob
        self._headers = dict(headers)
        self._what = f"write {location}"
        self._buffer = bytearray()
        self._blocks: list[str] = []
        self._tag = secrets.token_hex(6)  # block ids of this upload only: another upload's are not ours
        self._sender: ThreadPoolExecutor | None = None
        self._in_flight: Future[None] | None = None
        self._open = True
        self.size = 0

    def write(self, data: bytes) -> None:
        assert self._open, "write after commit or abort"
        self._buffer += data
        self.size += len(data)
        while len(self._buffer) >= BLOCK:
            self._put_block(BLOCK)

    def _put_block(self, length: int) -> None:
        """Hand the buffer's first ``length`` bytes to the sender once the block before has arrived."""
        self._settle()
        with memoryview(self._buffer) as view:
            block = bytes(view[:length])
        del self._buffer[:length]
        # Every id of a blob has the same length (Azure requires it): a fixed-width counter.
        block_id = base64.b64encode(f"{self._tag}-{len(self._blocks):06d}".encode()).decode("ascii")
        self._blocks.append(block_id)
        if self._sender is None:
            self._sender = ThreadPoolExecutor(1, thread_name_prefix="mcv-azure-block")
        query = [("comp", "block"), ("blockid", block_id)]
        self._in_flight = self._sender.submit(self._send, query, {}, block)

    def _settle(self) -> None:
        """Wait for the block in flight; its failure surfaces here."""
        if self._in_flight is not None:
            future, self._in_flight = self._in_flight, None
            future.result()

    def _send(self, query: list[tuple[str, str]], headers: Mapping[str, str], content: bytes) -> None:
        self._account.send(
            "PUT", self._where, self._what, self._container, self._blob, query=query, headers=headers,
            content=content,
        ).close()  # fmt: skip

    def commit(self) -> None:
        assert self._open, "commit after commit or abort"
        if not self._blocks:
            self._send([], {"x-ms-blob-type": "BlockBlob", **self._headers}, bytes(self._buffer))
        else:
            if self._buffer:
                self._put_block(len(self._buffer))
            self._settle()
            latest = "".join(f"<Latest>{escape(block_id)}</Latest>" for block_id in self._blocks)
            body = f'<?xml version="1.0" encoding="utf-8"?><BlockList>{latest}</BlockList>'.encode()
            self._send([("comp", "blocklist")], {"Content-Type": "application/xml", **self._headers}, body)
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
        with contextlib.suppress(TaskFailed):  # nothing is committed: the blob stays as it was
            self._settle()
        self._close()


def _name(element: ET.Element | None) -> str:
    """A listed blob's name; Azure percent-encodes a name XML cannot carry (``Encoded="true"``)."""
    if element is None or element.text is None:
        return ""
    return unquote(element.text) if element.get("Encoded") == "true" else element.text


def _signatures(sas: str) -> list[str]:
    """The signature of a SAS token alone, decoded: a message could show it without the rest."""
    return parse_qs(sas.strip().removeprefix("?")).get("sig", [])


def _metadata(value: object) -> dict[str, str]:
    """export/azure/blob's ``metadata`` as x-ms-meta-* headers carry it."""
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
