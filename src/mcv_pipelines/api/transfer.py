"""Moving file bytes: streamed multipart uploads to a task's form, resumable downloads of results.

Neither direction holds a whole file in memory. Uploads build the multipart body as an async stream of
bounded chunks with a known Content-Length (form fields in order, ``file`` last, no Authorization
header, redirects followed). Downloads write to a temporary file beside the target, resume with
``Range`` after a dropped connection (a bounded number of times) and rename into place when complete.
"""

from __future__ import annotations

import contextlib
import mimetypes
import os
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin, urlsplit

import httpx

from mcv_pipelines.api.diskio import CHUNK_SIZE, WriteBehind, read_ahead
from mcv_pipelines.api.errors import TransferError
from mcv_pipelines.api.partials import part_path, remove_stale_parts
from mcv_pipelines.api.retry import RetryPolicy

__all__ = ["CHUNK_SIZE", "MultipartBody", "Progress", "download", "safe_filename", "upload"]

Progress = Callable[[int, int | None], None]  # (bytes so far, total or None), called as bytes move

_MAX_REDIRECTS = 5
_UNSAFE = re.compile(r'[<>:"|?*/\\]')


def safe_filename(name: str, default: str = "download") -> str:
    """A file name that stays inside its directory: no path parts, control characters or dot names."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch) not in {"Cc", "Cf", "Zl", "Zp"})
    base = _UNSAFE.sub("_", base).strip().lstrip(".").strip()
    if not base:
        return default
    encoded = base.encode("utf-8")
    if len(encoded) > 240:  # keep the suffix; most file systems stop at 255 bytes
        stem, dot, suffix = base.rpartition(".")
        keep = suffix if dot and len(suffix) < 16 else ""
        room = 240 - len(keep.encode()) - 1
        head = (stem if keep else base).encode()[:room].decode("utf-8", "ignore")
        base = f"{head}.{keep}" if keep else head
    return base


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


@dataclass(frozen=True)
class MultipartBody:
    """A multipart/form-data body streamed from disk; ``content_length`` is known beforehand."""

    fields: Sequence[tuple[str, str]]
    path: Path
    filename: str
    size: int
    boundary: str

    @classmethod
    def build(
        cls, fields: Sequence[tuple[str, str]], path: Path, filename: str | None = None
    ) -> MultipartBody:
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise TransferError(f"upload of {path}", f"cannot read the file: {exc.strerror or exc}") from exc
        return cls(tuple(fields), path, filename or path.name, size, f"mcv-{secrets.token_hex(16)}")

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def _head(self) -> bytes:
        parts = [
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{_quote(k)}"\r\n\r\n{v}\r\n'.encode()
            for k, v in self.fields
            if k != "file"
        ]
        ctype = mimetypes.guess_type(self.filename)[0] or "application/octet-stream"
        parts.append(
            (
                f'--{self.boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{_quote(self.filename)}"\r\nContent-Type: {ctype}\r\n\r\n'
            ).encode()
        )
        return b"".join(parts)

    def _tail(self) -> bytes:
        return f"\r\n--{self.boundary}--\r\n".encode()

    @property
    def content_length(self) -> int:
        return len(self._head()) + self.size + len(self._tail())

    async def stream(self, progress: Progress | None = None) -> AsyncIterator[bytes]:
        """Yield the body in chunks of at most CHUNK_SIZE bytes, reading the file as it goes."""
        yield self._head()
        try:
            handle: BinaryIO = self.path.open("rb")
        except OSError as exc:
            raise TransferError(
                f"upload of {self.path}", f"cannot read the file: {exc.strerror or exc}"
            ) from exc
        sent = 0
        try:
            # aclosing: stopped early (a failed send), the read in flight ends before the file closes
            async with contextlib.aclosing(read_ahead(handle, self.size)) as chunks:
                async for chunk in chunks:  # the next MiB is read while this one goes out
                    sent += len(chunk)
                    yield chunk
                    if progress is not None:
                        progress(sent, self.size)
        except OSError as exc:
            raise TransferError(f"upload of {self.path}", f"read failed: {exc.strerror or exc}") from exc
        finally:
            handle.close()
        if sent != self.size:
            raise TransferError(f"upload of {self.path}", "the file changed size while it was being sent")
        yield self._tail()


# Answers after which an upload is sent again: the server did not take the file (a 500 included: the
# local service answers it when its database went away mid-request).
_RETRIED_STATUSES = frozenset({500, 502, 503, 504})


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


async def upload(
    http: httpx.AsyncClient,
    url: str,
    fields: Sequence[tuple[str, str]],
    path: Path,
    *,
    http_timeout: httpx.Timeout,
    retry: RetryPolicy,
    progress: Progress | None = None,
) -> int:
    """POST ``path`` to an upload form; follow redirects; return the final 2xx status.

    A 5xx answer means the form's server refused the file as a whole (a store or a database briefly
    away): the upload is sent again from the start, after a backoff, within the retry policy's bounds.
    A connection cut mid-request is a TransferError with ``cut`` set: only the form's task can tell
    whether the file arrived (ApiClient.upload_file asks it). So is a 409 to a try sent again after a
    5xx: the server may have taken the file and failed only after.
    """
    body = MultipartBody.build(fields, path)
    what = f"upload of {path.name} to {_host(url)}"
    started = retry.clock()
    failures = 0
    while True:
        try:
            return await _upload_once(http, url, body, what, http_timeout, retry, progress)
        except TransferError as exc:
            if failures and exc.status == 409:
                # refused as no longer waiting after a 5xx: the 5xx may have come after the file
                # was taken (the database cut at COMMIT); like a cut, only the task can tell
                raise TransferError(exc.what, exc.reason, status=409, cut=True) from None
            failures += 1
            late = retry.clock() - started >= retry.max_elapsed
            if exc.status not in _RETRIED_STATUSES or failures >= retry.attempts or late:
                raise
        await retry.sleep(retry.backoff(failures))
        progress = None  # the bytes of the first try were counted once already


async def _upload_once(
    http: httpx.AsyncClient,
    url: str,
    body: MultipartBody,
    what: str,
    http_timeout: httpx.Timeout,
    retry: RetryPolicy,
    progress: Progress | None,
) -> int:
    method = "POST"
    for _ in range(_MAX_REDIRECTS + 1):
        headers = {"User-Agent": "mcv-pipelines"}
        content: AsyncIterator[bytes] | None = None
        if method == "POST":
            headers |= {"Content-Type": body.content_type, "Content-Length": str(body.content_length)}
            content = body.stream(progress)
        request = http.build_request(method, url, headers=headers, content=content, timeout=http_timeout)
        response = await _send_once(http, request, what, retry, not_sent_only=True)
        location = response.headers.get("location")
        if response.is_redirect and location:
            url = urljoin(url, location)
            # 307/308 repeat the POST with the body; the others turn into a plain GET
            method = "POST" if response.status_code in (307, 308) else "GET"
            continue
        if 200 <= response.status_code < 300:
            return response.status_code
        snippet = response.text[:200].replace("\n", " ").strip()
        raise TransferError(
            what, f"HTTP {response.status_code}: {snippet or 'no message'}", status=response.status_code
        )
    raise TransferError(what, f"more than {_MAX_REDIRECTS} redirects")


async def _send_once(
    http: httpx.AsyncClient, request: httpx.Request, what: str, retry: RetryPolicy, *, not_sent_only: bool
) -> httpx.Response:
    failures = 0
    while True:
        try:
            response = await http.send(request, follow_redirects=False)
            await response.aread()
            return response
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            failures += 1
            if failures >= retry.attempts:
                raise TransferError(what, f"cannot connect: {type(exc).__name__}") from exc
            await retry.sleep(retry.backoff(failures))
        except httpx.TransportError as exc:  # cut after sending began: did the server take it?
            raise TransferError(what, f"network error: {type(exc).__name__}: {exc}", cut=True) from exc
        except httpx.HTTPError as exc:
            raise TransferError(what, f"network error: {type(exc).__name__}: {exc}") from exc


async def download(
    http: httpx.AsyncClient,
    url: str,
    dest: Path,
    *,
    http_timeout: httpx.Timeout,
    retry: RetryPolicy,
    max_resumes: int = 5,
    progress: Progress | None = None,
) -> Path:
    """Stream ``url`` into ``dest`` (temp file + rename); resume with Range when the stream drops."""
    what = f"download of {dest.name} from {_host(url)}"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TransferError(what, f"cannot create {dest.parent}: {exc.strerror or exc}") from exc
    remove_stale_parts(dest)
    part = part_path(dest)
    try:
        await _fetch(http, url, part, what, http_timeout, retry, max_resumes, progress)
        os.replace(part, dest)
    except OSError as exc:
        raise TransferError(what, f"cannot write {dest}: {exc.strerror or exc}") from exc
    except httpx.HTTPError as exc:  # a body that cannot be decoded, too many redirects
        raise TransferError(what, f"{type(exc).__name__}: {exc}") from exc
    finally:
        part.unlink(missing_ok=True)
    return dest


async def _fetch(
    http: httpx.AsyncClient,
    url: str,
    part: Path,
    what: str,
    http_timeout: httpx.Timeout,
    retry: RetryPolicy,
    max_resumes: int,
    progress: Progress | None,
) -> None:
    drops = 0
    total: int | None = None
    # Written behind: the disk takes each MiB on a worker thread while the next one arrives.
    async with WriteBehind(part.open("wb")) as out:
        while True:
            # identity: Range offsets then count the bytes we store
            headers = {"User-Agent": "mcv-pipelines", "Accept-Encoding": "identity"}
            if out.written:
                headers["Range"] = f"bytes={out.written}-"
            request = http.build_request("GET", url, headers=headers, timeout=http_timeout)
            try:
                response = await http.send(request, stream=True, follow_redirects=True)
                try:
                    if response.status_code == 206 and out.written:
                        content_range = response.headers.get("content-range")
                        if not _range_starts_at(content_range, out.written):
                            raise TransferError(what, "the server resumed at the wrong offset")
                        total = total or _range_total(content_range)
                    elif response.status_code == 200:
                        if out.written:  # the server ignored Range: start over
                            await out.flush()
                            out.handle.seek(0)
                            out.handle.truncate()
                            out.written = 0
                        length = response.headers.get("content-length")
                        total = int(length) if length and length.isdigit() else None
                    else:
                        raise TransferError(what, f"HTTP {response.status_code}", status=response.status_code)
                    try:
                        async for chunk in response.aiter_bytes():
                            if await out.add(chunk) and progress is not None:
                                progress(out.written, total)
                    finally:  # a drop loses nothing already received
                        await out.flush()
                    if progress is not None:
                        progress(out.written, total)
                finally:
                    await response.aclose()
                if total is None or out.written >= total:
                    return
                reason = f"the stream ended after {out.written} of {total} bytes"
            except httpx.TransportError as exc:
                reason = f"{type(exc).__name__}: {exc}"
            drops += 1
            if drops > max_resumes:
                raise TransferError(what, f"gave up after {max_resumes} resumes ({reason})")
            await retry.sleep(retry.backoff(drops))


def _range_total(content_range: str | None) -> int | None:
    match = re.search(r"/(\d+)\s*$", content_range or "")
    return int(match.group(1)) if match else None


def _range_starts_at(content_range: str | None, offset: int) -> bool:
    match = re.match(r"bytes\s+(\d+)-", content_range or "")
    return match is not None and int(match.group(1)) == offset
