"""GET /files/{task_id}/{filename}: export/url downloads behind signed, expiring links.

Streamed from the store (from disk when it is a directory) with Content-Length, Content-Disposition
(attachment, or inline when the export asked for it) and Range support.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import FileResponse, Response

from mcv_pipelines.local_service.context import context
from mcv_pipelines.local_service.errors import ApiError, not_found
from mcv_pipelines.local_service.paths import safe_filename
from mcv_pipelines.local_service.signing import valid_signature
from mcv_pipelines.local_service.storage.download import stored_download

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
        raise ApiError(403, "INVALID_SIGNATURE", "The download link's signature is not valid.")
    if not expires.isdigit() or int(expires) < time.time():
        raise ApiError(403, "LINK_EXPIRED", "The download link has expired.")
    if safe_filename(filename) != filename:
        raise not_found("File")
    path = ctx.storage.local_path(task_id, filename)
    if path is None:  # a remote store: streamed out of it
        return ctx.metrics.counted(await stored_download(ctx.storage, task_id, filename, request, inline))
    if not path.is_file():
        raise not_found("File")
    return ctx.metrics.counted(
        FileResponse(path, filename=filename, content_disposition_type="inline" if inline else "attachment")
    )
