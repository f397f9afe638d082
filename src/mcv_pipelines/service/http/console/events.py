"""Server-Sent Events: the caller's job and task changes, from the service's change feed.

``GET /console/api/events`` (optionally ``?job=ID``) with the key in the Authorization header, like
every API call (the page reads it with fetch(), so the key never goes into a URL). Each change is one
``change`` event holding ids and the new status; the page then reads the job through the public API,
so an event never shows more than the key could read anyway. ``ready`` comes once the subscription is
live: what the page fetches after it cannot miss a change.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import StreamingResponse

from mcv_pipelines.service.http.auth import authorize
from mcv_pipelines.service.http.context import context
from mcv_pipelines.service.http.request_utils import owned_job
from mcv_pipelines.service.state.changes import Change

__all__ = ["KEEPALIVE_SECONDS", "stream_changes"]

KEEPALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
CLOSING_CHECK_SECONDS = 0.5  # how soon a stream ends once the service is stopping


def _event(name: str, data: object) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _public(change: Change) -> dict[str, object]:
    return {
        "kind": change.kind,
        "id": change.id,
        "status": change.status,
        "job_id": change.job_id if change.kind == "task" else change.id,
        "percent": change.percent,
    }


async def stream_changes(request: Request) -> StreamingResponse:
    ctx = context(request)
    caller = authorize(request, "task.read")
    job_id = request.query_params.get("job") or None
    if job_id is not None:
        owned_job(ctx, caller, job_id)  # 404 for a job the key cannot see

    def wanted(change: Change) -> bool:
        if change.user_id != caller.user_id:
            return False
        return job_id is None or job_id in (change.job_id, change.id)

    async def changes() -> AsyncIterator[bytes]:
        async with ctx.changes.subscribe(wanted, limit=1000) as subscription:
            yield _event("ready", {"job": job_id})
            quiet = 0.0
            while not ctx.closing.is_set():
                change = await subscription.next(within=CLOSING_CHECK_SECONDS)
                if subscription.overflowed:  # some were dropped: the page reloads what it shows
                    subscription.overflowed = False
                    yield _event("ready", {"job": job_id})
                if change is not None:
                    quiet = 0.0
                    yield _event("change", _public(change))
                    continue
                quiet += CLOSING_CHECK_SECONDS
                if quiet >= KEEPALIVE_SECONDS:
                    quiet = 0.0
                    yield b": keepalive\n\n"

    return StreamingResponse(
        changes(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
