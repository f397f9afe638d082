"""A stored file as an HTTP response: streamed in chunks, with Content-Length, Content-Disposition
and single-range ``Range`` requests (206, or 416 when the range lies outside the file)."""

from __future__ import annotations

import mimetypes
import re
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from mcv_pipelines.service.files.storage.base import Storage, StorageError
from mcv_pipelines.service.http.errors import ApiError, not_found

__all__ = ["stored_download", "stored_file_response"]

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


async def stored_download(
    storage: Storage, task_id: str, filename: str, request: Request, inline: bool
) -> Response:
    """The download of a stored file; 404 when it is not there, 503 when the store fails."""
    try:
        size = await run_in_threadpool(storage.size, task_id, filename)
        if size is None:
            raise not_found("File")
        wanted = request.headers.get("range")
        head = request.method == "HEAD"
        return await stored_file_response(storage, task_id, filename, size, wanted, inline, head)
    except FileNotFoundError:
        raise not_found("File") from None
    except StorageError as exc:
        raise ApiError(503, "STORAGE_UNAVAILABLE", exc.message) from None


async def stored_file_response(
    storage: Storage,
    task_id: str,
    filename: str,
    size: int,
    range_header: str | None,
    inline: bool,
    head: bool = False,
) -> Response:
    headers = {
        "accept-ranges": "bytes",
        "content-disposition": _disposition(filename, inline),
    }
    span = _span(range_header, size) if range_header else None
    if span == "unsatisfiable":
        return Response(status_code=416, headers={**headers, "content-range": f"bytes */{size}"})
    start, end = span if isinstance(span, tuple) else (0, size - 1)
    status = 206 if isinstance(span, tuple) else 200
    if status == 206:
        headers["content-range"] = f"bytes {start}-{end}/{size}"
    headers["content-length"] = str(max(0, end - start + 1))
    media_type = _media_type(filename)
    if head:
        return Response(status_code=status, headers=headers, media_type=media_type)
    # The store answers before the first byte is sent, so a failure is still an error response.
    body = await run_in_threadpool(storage.read, task_id, filename, start, end) if size else iter(())
    return StreamingResponse(body, status_code=status, headers=headers, media_type=media_type)


def _span(header: str, size: int) -> tuple[int, int] | str | None:
    """(start, end) of a single satisfiable range; "unsatisfiable"; None: serve the whole file
    (several ranges, or a header this does not understand, which RFC 9110 lets us ignore)."""
    match = _RANGE.fullmatch(header.strip())
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            return "unsatisfiable"
        return max(0, size - length), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size or (last and int(last) < start):
        return "unsatisfiable"
    return start, end


def _disposition(filename: str, inline: bool) -> str:
    kind = "inline" if inline else "attachment"
    quoted = quote(filename)
    if quoted != filename:
        return f"{kind}; filename*=utf-8''{quoted}"
    return f'{kind}; filename="{filename}"'


def _media_type(filename: str) -> str:
    return mimetypes.guess_type(filename)[0] or "application/octet-stream"
