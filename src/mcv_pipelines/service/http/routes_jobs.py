"""Jobs: create (also synchronously under /sync), list, show (redirect=true), wait, delete."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcv_pipelines.service.files.signing import upload_form
from mcv_pipelines.service.http.auth import Caller, authorize
from mcv_pipelines.service.http.context import ServiceContext, context
from mcv_pipelines.service.http.errors import ApiError, not_found
from mcv_pipelines.service.http.request_utils import (
    PAGE_BOUND,
    includes,
    json_body,
    owned_job,
    paging,
    seq_bound,
    wait_ended,
)
from mcv_pipelines.service.http.validate import validate_job
from mcv_pipelines.service.state.jsontext import FastJSONResponse
from mcv_pipelines.service.state.render import job_json, list_envelope
from mcv_pipelines.service.state.store import Doc, now_iso
from mcv_pipelines.service.state.tasks import input_names, new_id, new_task
from mcv_pipelines.service.work.embedded import at_creation, born_ended

__all__ = ["create_job", "create_job_sync", "delete_job", "list_jobs", "prepare_task", "show_job", "wait_job"]


def prepare_task(ctx: ServiceContext, task: Doc) -> Doc:
    """Finish a new task before it is saved: an import/upload task gets its signed form."""
    if task["operation"] == "import/upload":
        redirect = task["payload"].get("redirect")
        task["result"] = {
            "form": upload_form(
                ctx.config.signing_key,
                ctx.base,
                task["id"],
                ctx.config.upload_ttl,
                ctx.config.max_upload_size,
                redirect,
            )
        }
    return task


def check_credits(ctx: ServiceContext, caller: Caller) -> None:
    user = ctx.store.get_user(caller.user_id)
    if not ctx.config.sandbox and user is not None and user["credits"] <= 0:
        raise ApiError(402, "CREDITS_EXCEEDED", "Your account has run out of conversion credits")


def _new_job(
    ctx: ServiceContext, caller: Caller, body: dict[str, Any]
) -> tuple[str, tuple[Doc, list[Doc]] | None]:
    """Create the job: its id, and the job with its tasks when they are still as stored (none of the
    tasks started or failed at once), for an answer that need not read them back."""
    validate_job(body)
    check_credits(ctx, caller)
    ctx.limiter.take(caller.key)
    job: Doc = {
        "id": new_id(),
        "user_id": caller.user_id,
        "tag": body.get("tag"),
        "status": "processing",
        "created_at": now_iso(),
        "started_at": None,
        "ended_at": None,
        "ignore_error": bool(body.get("ignore_error")),
        "webhook_url": body.get("webhook_url"),
        "webhook_secret": body.get("webhook_signing_secret")
        or hmac.new(ctx.config.signing_key, f"webhook-{caller.user_id}".encode(), "sha256").hexdigest(),
    }
    ids = {name: new_id() for name in body["tasks"]}
    tasks = []
    for name, payload in body["tasks"].items():
        refs = input_names(payload.get("input"))
        if payload.get("operation") == "watermark":
            refs += input_names(payload.get("image"))
        task = new_task(
            caller.user_id,
            payload,
            {ref: ids[ref] for ref in refs},
            job_id=job["id"],
            name=name,
            region=ctx.config.region,
        )
        task["id"] = ids[name]
        if at_creation(ctx.storage, ctx.store.db.shared, task):
            born_ended(ctx.config, ctx.storage, task)
        tasks.append(prepare_task(ctx, task))
    unchanged = ctx.scheduler.add_job(job, tasks)
    return str(job["id"]), ((job, tasks) if unchanged else None)


def _job_answer(
    ctx: ServiceContext,
    job_id: str,
    status: int = 200,
    job: Doc | None = None,
    tasks: list[Doc] | None = None,
) -> FastJSONResponse:
    """The job with its tasks, each read now unless given as just read or stored."""
    job = job or ctx.store.get_job(job_id)
    if job is None:  # deleted meanwhile, e.g. while a wait request was blocked on it
        raise not_found("Job")
    tasks = ctx.store.job_tasks(job_id) if tasks is None else tasks
    return FastJSONResponse({"data": job_json(job, tasks, ctx.base)}, status_code=status)


def _export_url(ctx: ServiceContext, job_id: str) -> str | None:
    for task in ctx.store.job_tasks(job_id):
        if task["operation"] == "export/url" and task["status"] == "finished":
            files = (task.get("result") or {}).get("files") or []
            if files:
                return str(files[0]["url"])
    return None


def _redirect_or(ctx: ServiceContext, job_id: str, status: int = 200) -> Response:
    url = _export_url(ctx, job_id)
    if url is None:
        return _job_answer(ctx, job_id, status)
    return RedirectResponse(url, status_code=302)


def _rendered_job(ctx: ServiceContext) -> Callable[[Doc], Doc]:
    return lambda job: job_json(job, ctx.store.job_tasks(job["id"]), ctx.base)


async def create_job(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    job_id, stored = _new_job(ctx, caller, await json_body(request))
    job, tasks = stored or (None, None)
    return _job_answer(ctx, job_id, 201, job, tasks)


async def create_job_sync(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    body = await json_body(request)
    job_id, _ = _new_job(ctx, caller, body)
    job = await wait_ended(ctx, "job", job_id, _rendered_job(ctx))
    if body.get("redirect") is True:
        return _redirect_or(ctx, job_id, 201)
    return _job_answer(ctx, job_id, 201, job)


async def list_jobs(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    page, per_page = paging(request)
    status = request.query_params.get("filter[status]")
    tag = request.query_params.get("filter[tag]")
    rows = ctx.store.list_jobs(
        caller.user_id, status, tag, per_page + 1, (page - 1) * per_page, below=seq_bound(request)
    )
    shown = rows[:per_page]
    with_tasks = "tasks" in includes(request)
    items = [
        job_json(j, ctx.store.job_tasks(j["id"]) if with_tasks else [], ctx.base, with_tasks=with_tasks)
        for _, j in shown
    ]
    query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page", PAGE_BOUND)}
    more = len(rows) > per_page
    bound = (PAGE_BOUND, shown[-1][0]) if more else None
    return FastJSONResponse(list_envelope(items, f"{ctx.base}/v2/jobs", query, page, per_page, more, bound))


async def show_job(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    job = owned_job(ctx, caller, request.path_params["job_id"])
    if request.query_params.get("redirect", "").lower() in ("1", "true"):
        return _redirect_or(ctx, job["id"])
    return _job_answer(ctx, job["id"], job=job)


async def wait_job(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    job = owned_job(ctx, caller, request.path_params["job_id"])
    latest = await wait_ended(ctx, "job", job["id"], _rendered_job(ctx), known=job)
    if request.query_params.get("redirect", "").lower() in ("1", "true"):
        return _redirect_or(ctx, job["id"])
    return _job_answer(ctx, job["id"], job=latest)


async def delete_job(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    job = owned_job(ctx, caller, request.path_params["job_id"])
    await run_in_threadpool(ctx.scheduler.delete_job, job["id"])  # the store may be remote
    return Response(status_code=204)
