"""Small helpers the routes share: reading the body, paging, include lists, owned resources, waiting."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import orjson
from starlette.requests import Request

from mcv_pipelines.service.http.auth import Caller
from mcv_pipelines.service.http.context import ServiceContext
from mcv_pipelines.service.http.errors import InvalidData, SyncWaitExceeded, not_found
from mcv_pipelines.service.state.changes import Change
from mcv_pipelines.service.state.store import Doc
from mcv_pipelines.service.state.tasks import ENDED

__all__ = [
    "MAX_PER_PAGE",
    "PAGE_BOUND",
    "includes",
    "json_body",
    "owned_job",
    "owned_task",
    "paging",
    "seq_bound",
    "wait_ended",
]

_RECHECK_MAX = 5.0
_UNDER_WAY = ("waiting", "processing")  # changes that cannot end a wait


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object: read by orjson, else by the standard library (its words say what is
    wrong, and it takes what orjson refuses, such as integers past 64 bits). Strings must be Unicode:
    a lone surrogate escape (``"\\ud800"``) is refused here, not left to fail the database write."""
    raw = await request.body() or b"{}"
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise InvalidData({"body": [f"The body is not valid JSON: {exc}"]}) from exc
        try:
            json.dumps(body, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidData(
                {"body": ["The body holds a lone surrogate escape (\\ud800 to \\udfff): not Unicode text."]}
            ) from None
    if not isinstance(body, dict):
        raise InvalidData({"body": ["The body must be a JSON object."]})
    return body


MAX_PER_PAGE = 1000  # the spec shows no maximum; ours is documented in the OpenAPI description
PAGE_BOUND = "seq_below"  # the query parameter of a next link: where the previous page ended


def paging(request: Request) -> tuple[int, int]:
    """(page, per_page) from the query; per_page defaults to 100, at most MAX_PER_PAGE."""
    errors: dict[str, list[str]] = {}
    values = {}
    for name, default, top in (("page", 1, 10**9), ("per_page", 100, MAX_PER_PAGE)):
        raw = request.query_params.get(name, str(default))
        if not raw.isdigit() or not 1 <= int(raw) <= top:
            errors[name] = [f"The {name} must be an integer from 1 to {top}."]
        else:
            values[name] = int(raw)
    if errors:
        raise InvalidData(errors)
    return values["page"], values["per_page"]


def seq_bound(request: Request) -> int | None:
    """The ``seq_below`` of a next link (list routes put it there): the page is the items listed
    after that point, read straight off an index instead of skipping ``(page - 1) * per_page`` rows.
    None when absent: the page number alone says where the page starts."""
    raw = request.query_params.get(PAGE_BOUND)
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise InvalidData({PAGE_BOUND: [f"The {PAGE_BOUND} must be a position from a next link."]})
    return int(raw)


def includes(request: Request) -> set[str]:
    params = request.query_params
    return {
        p.strip()
        for value in params.getlist("include") + params.getlist("include[]")
        for p in value.split(",")
        if p.strip()
    }


def owned_task(ctx: ServiceContext, caller: Caller, task_id: str) -> Doc:
    task = ctx.store.get_task(task_id)
    if task is None or task["user_id"] != caller.user_id:  # another user's task does not exist for you
        raise not_found("Task")
    return task


def owned_job(ctx: ServiceContext, caller: Caller, job_id: str) -> Doc:
    job = ctx.store.get_job(job_id)
    if job is None or job["user_id"] != caller.user_id:
        raise not_found("Job")
    return job


def _still_open(ctx: ServiceContext, kind: str, item: Doc) -> str:
    """What a job is waiting for: its tasks that have not ended, an upload named as such."""
    if kind != "job":
        return ""
    open_tasks = [
        f"{t['name']} ({'waiting for its upload' if t['operation'] == 'import/upload' else t['status']})"
        for t in ctx.store.job_tasks(item["id"])
        if t["status"] not in ENDED
    ]
    return f" (tasks not ended: {', '.join(open_tasks)})" if open_tasks else ""


def _exceeded(ctx: ServiceContext, kind: str, item: Doc, render: Callable[[Doc], Doc]) -> SyncWaitExceeded:
    bound = ctx.config.sync_max_wait
    return SyncWaitExceeded(
        f"The {kind} {item['id']} has not ended within {bound:g} s, the longest a sync request waits "
        f"here; it is {item['status']}{_still_open(ctx, kind, item)}. Ask again, or poll "
        f"GET /v2/{kind}s/{item['id']}.",
        render(item),
    )


async def wait_ended(
    ctx: ServiceContext,
    kind: str,
    item_id: str,
    render: Callable[[Doc], Doc],
    known: Doc | None = None,
) -> Doc | None:
    """Wait until the job or task has ended; its latest state, None once it has been deleted.

    A sync request waits at most ``sync_max_wait`` seconds (ServiceConfig): then SyncWaitExceeded,
    a 409 naming the item with ``render(item)`` as its ``data``, so that no client waits out its own
    read timeout without an answer (a job whose upload never comes would hold it forever).

    Woken by the change feed: a change of the item to a status other than processing (its end, or
    its deletion), made in this process or heard from another one. A job's new status is written with
    the end of its last task and published after, so the job's own change is the one to wait for; the
    starts and progress of its tasks wake nobody. The state is read again on every wake-up, and also
    after a quiet spell that doubles up to ``_RECHECK_MAX`` seconds, in case a notice was lost (a
    database reconnect). ``known``, the item as the caller just read it, is the answer when it has
    ended already.
    """
    if known is not None and known["status"] in ENDED:
        return known
    deadline = time.monotonic() + ctx.config.sync_max_wait
    recheck = 0.5

    def concerns(change: Change) -> bool:
        return change.id == item_id and change.kind == kind and change.status not in _UNDER_WAY

    async with ctx.changes.subscribe(concerns, limit=100) as changes:
        while True:  # subscribed before the first read: a change in between is not missed
            item = ctx.store.get_job(item_id) if kind == "job" else ctx.store.get_task(item_id)
            left = deadline - time.monotonic()
            if item is None or item["status"] in ENDED:
                return item
            if left <= 0:
                raise _exceeded(ctx, kind, item, render)
            if await changes.next(within=min(recheck, left)) is None:
                recheck = min(recheck * 2, _RECHECK_MAX)
            changes.drain()
