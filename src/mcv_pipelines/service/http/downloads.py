"""GET /files/{task_id}/{filename}: export/url downloads behind signed, expiring links.

Streamed from the store (from disk when it is a directory) with Content-Length, Content-Disposition
(attachment, or inline when the export asked for it) and Range support.
"""

from __future__ import annotations

import time
from stat import S_ISREG

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.types import Receive, Scope, Send

from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.files.signing import valid_signature
from mcv_pipelines.service.http.context import context
from mcv_pipelines.service.http.errors import ApiError, not_found
from mcv_pipelines.service.http.file_answer import stored_download

__all__ = ["download"]


async def download(request: Request) -> Response:
    ctx = context(request)
    task_id = str(request.path_params["task_id"])
    filename = str(request.path_params["filename"])
    query = request.query_params
    inline = query.get("inline") == "1"
    expires = query.get("expires", "")
    if not valid_signature(
        ctx.config.signing_key, query.get("signature", ""), "file", task_id, filename, expires, int(inline)
    ):
        raise ApiError(
            403,
            "INVALID_SIGNATURE",
            "The download link's signature is not valid (altered, or signed before the service's signing "
            "key was rotated): get a fresh link by reading the task again.",
        )
    if not expires.isdigit() or int(expires) < time.time():
        raise ApiError(403, "LINK_EXPIRED", "The download link has expired.")
    if safe_filename(filename) != filename:
        raise not_found("File")
    path = ctx.storage.local_path(task_id, filename)
    if path is None:  # a remote store: streamed out of it
        return ctx.metrics.counted(await stored_download(ctx.storage, task_id, filename, request, inline))
    try:
        stat = path.stat()
    except OSError:
        stat = None
    if stat is None or not S_ISREG(stat.st_mode):
        raise not_found("File")
    disposition = "inline" if inline else "attachment"
    return ctx.metrics.counted(_SmallFileResponse(path, filename=filename, stat_result=stat,
                                                  content_disposition_type=disposition))  # fmt: skip


class _SmallFileResponse(FileResponse):
    """A FileResponse (same headers, Range and HEAD support) that sends a small file whole, read at
    once, when the whole file is asked for: no worker-thread hops to open, read and close it."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stat = self.stat_result
        whole = Headers(scope=scope).get("range") is None and scope.get("method") == "GET"
        if stat is None or not whole or stat.st_size > self.chunk_size:
            await super().__call__(scope, receive, send)
            return
        with open(self.path, "rb") as file:  # noqa: ASYNC230 - a few KiB on local disk
            body = file.read(self.chunk_size + 1)
        if len(body) != stat.st_size:  # changed since the stat: let the full path deal with it
            await super().__call__(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})
