"""Tasks: show (with includes, also blocking under /sync), list, cancel, retry, delete, and the
standalone creation endpoints (imports, processing, exports) whose ``input`` is by task ID."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from mcv_pipelines.service.http.auth import Caller, authorize
from mcv_pipelines.service.http.context import ServiceContext, context
from mcv_pipelines.service.http.errors import InvalidData
from mcv_pipelines.service.http.request_utils import (
    PAGE_BOUND,
    includes,
    json_body,
    owned_task,
    paging,
    seq_bound,
    wait_ended,
)
from mcv_pipelines.service.http.routes_jobs import check_credits, prepare_task
from mcv_pipelines.service.http.validate import validate_task
from mcv_pipelines.service.state.jsontext import FastJSONResponse
from mcv_pipelines.service.state.render import list_envelope, task_json
from mcv_pipelines.service.state.store import Doc
from mcv_pipelines.service.state.tasks import input_names, new_task

__all__ = [
    "STANDALONE",
    "cancel_task",
    "create_task",
    "delete_task",
    "list_tasks",
    "retry_task",
    "show_task",
    "wait_task",
]

STANDALONE = (
    "import/url",
    "import/upload",
    "import/base64",
    "import/raw",
    "import/s3",
    "import/azure/blob",
    "import/google-cloud-storage",
    "import/sftp",
    "import/openstack",
    "convert",
    "thumbnail",
    "optimize",
    "merge",
    "capture-website",
    "watermark",
    "metadata",
    "metadata/write",
    "archive",
    "export/url",
    "export/s3",
    "export/azure/blob",
    "export/google-cloud-storage",
    "export/sftp",
    "export/openstack",
    "export/upload",
)


def _render(ctx: ServiceContext, task: Doc, include: set[str]) -> Doc:
    retries = ctx.store.retry_tasks(task["id"]) if "retries" in include else []
    job = ctx.store.get_job(task["job_id"]) if "job" in include and task.get("job_id") else None
    return task_json(task, ctx.base, include, retries=retries, job=job)


async def show_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    task = owned_task(ctx, caller, request.path_params["task_id"])
    return FastJSONResponse({"data": _render(ctx, task, includes(request))})


async def wait_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    task = owned_task(ctx, caller, request.path_params["task_id"])
    include = includes(request)
    task = await wait_ended(ctx, "task", task["id"], lambda t: _render(ctx, t, include)) or task
    return FastJSONResponse({"data": _render(ctx, task, include)})


async def list_tasks(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.read")
    page, per_page = paging(request)
    filters = {
        name: request.query_params.get(f"filter[{name}]", "") for name in ("job_id", "status", "operation")
    }
    rows = ctx.store.list_tasks(
        caller.user_id, filters, per_page + 1, (page - 1) * per_page, below=seq_bound(request)
    )
    shown = rows[:per_page]
    include = includes(request) & {"retries", "depends_on_tasks"}
    items = [_render(ctx, t, include) for _, t in shown]
    query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page", PAGE_BOUND)}
    more = len(rows) > per_page
    bound = (PAGE_BOUND, shown[-1][0]) if more else None
    return FastJSONResponse(list_envelope(items, f"{ctx.base}/v2/tasks", query, page, per_page, more, bound))


async def cancel_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    task = owned_task(ctx, caller, request.path_params["task_id"])
    if task["status"] not in ("waiting", "processing"):
        raise InvalidData(
            {"status": [f"Only waiting or processing tasks can be cancelled; this one is {task['status']}."]}
        )
    updated = ctx.scheduler.cancel(task["id"]) or task
    return FastJSONResponse({"data": _render(ctx, updated, set())})


async def retry_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    task = owned_task(ctx, caller, request.path_params["task_id"])
    ctx.limiter.take(caller.key)
    new = ctx.scheduler.retry(task["id"])
    assert new is not None
    if new["operation"] == "import/upload":
        prepare_task(ctx, new)
        ctx.store.save_task(new)
    return FastJSONResponse({"data": _render(ctx, new, set())}, status_code=201)


async def delete_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    task = owned_task(ctx, caller, request.path_params["task_id"])
    await run_in_threadpool(ctx.scheduler.delete_task, task["id"])  # the store may be remote
    return Response(status_code=204)


def _standalone(ctx: ServiceContext, caller: Caller, operation: str, body: dict[str, object]) -> Doc:
    payload = {**body, "operation": operation}
    errors = validate_task(payload)
    if body.get("operation", operation) != operation:
        errors["operation"] = [
            f"This path creates {operation} tasks; leave operation out or make it {operation}."
        ]
    depends_on: dict[str, str] = {}
    refs = input_names(payload.get("input")) + (
        input_names(payload.get("image")) if operation == "watermark" else []
    )
    for ref in refs:
        source = ctx.store.get_task(ref)
        if source is None or source["user_id"] != caller.user_id:
            errors.setdefault("input", []).append(f"The task {ref!r} does not exist.")
        else:
            depends_on[ref] = ref
    if errors:
        raise InvalidData(errors)
    check_credits(ctx, caller)
    ctx.limiter.take(caller.key)
    task = prepare_task(
        ctx, new_task(caller.user_id, payload, depends_on, job_id=None, name=None, region=ctx.config.region)
    )
    ctx.scheduler.add_task(task)
    return ctx.store.get_task(task["id"]) or task


async def create_task(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "task.write")
    operation = request.url.path.split("/v2/", 1)[1]
    task = _standalone(ctx, caller, operation, await json_body(request))
    return FastJSONResponse({"data": _render(ctx, task, set())}, status_code=201)
