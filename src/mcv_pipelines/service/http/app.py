"""The Starlette application: one declarative route table and the handlers that render the API's
error bodies. The sync endpoints live under /sync (a path prefix works as the SDKs' sync host)."""

from __future__ import annotations

import logging

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from mcv_pipelines.service.http import (
    console,
    downloads,
    health,
    listing,
    routes_account,
    routes_jobs,
    routes_tasks,
    uploads,
)
from mcv_pipelines.service.http.access import AccessLog, request_id_of
from mcv_pipelines.service.http.context import ServiceContext
from mcv_pipelines.service.http.errors import ApiError
from mcv_pipelines.service.http.faults import FaultInjector, Faults
from mcv_pipelines.service.http.method_routes import one_route_per_path
from mcv_pipelines.service.http.metrics import metrics_page
from mcv_pipelines.service.http.openapi.document import openapi_json
from mcv_pipelines.service.http.ratelimit import RateLimitHeaders

__all__ = ["build_app", "operator_routes", "routes"]

log = logging.getLogger(__name__)


def operator_routes() -> list[Route]:
    """What every process serves, a worker only these: liveness, readiness, metrics."""
    return [
        Route("/healthz", health.healthz, methods=["GET"]),
        Route("/readyz", health.readyz, methods=["GET"]),
        Route("/metrics", metrics_page, methods=["GET"]),
    ]


def routes() -> list[BaseRoute]:
    """The API's route table: one line per (path, method), folded into one route per path so that a
    405 names every method of its path."""
    jobs, tasks, account = routes_jobs, routes_tasks, routes_account
    table = [
        Route("/v2/jobs", jobs.create_job, methods=["POST"]),
        Route("/v2/jobs", jobs.list_jobs, methods=["GET"]),
        Route("/v2/jobs/{job_id}", jobs.show_job, methods=["GET"]),
        Route("/v2/jobs/{job_id}", jobs.delete_job, methods=["DELETE"]),
        Route("/v2/jobs/{job_id}/wait", jobs.wait_job, methods=["GET"]),
        Route("/sync/v2/jobs", jobs.create_job_sync, methods=["POST"]),
        Route("/sync/v2/jobs/{job_id}", jobs.wait_job, methods=["GET"]),
        Route("/sync/v2/tasks/{task_id}", tasks.wait_task, methods=["GET"]),
        Route("/v2/tasks", tasks.list_tasks, methods=["GET"]),
        Route("/v2/tasks/{task_id}", tasks.show_task, methods=["GET"]),
        Route("/v2/tasks/{task_id}", tasks.delete_task, methods=["DELETE"]),
        Route("/v2/tasks/{task_id}/cancel", tasks.cancel_task, methods=["POST"]),
        Route("/v2/tasks/{task_id}/retry", tasks.retry_task, methods=["POST"]),
        Route("/v2/operations", listing.list_operations, methods=["GET"]),
        Route("/v2/convert/formats", listing.convert_formats, methods=["GET"]),
        Route("/v2/users/me", account.me, methods=["GET"]),
        Route("/v2/users/me/webhooks", account.list_webhooks, methods=["GET"]),
        Route("/v2/webhooks", account.create_webhook, methods=["POST"]),
        Route("/v2/webhooks/{webhook_id}", account.delete_webhook, methods=["DELETE"]),
        Route("/upload/{task_id}", uploads.receive_upload, methods=["POST"]),
        Route("/files/{task_id}/{filename}", downloads.download, methods=["GET", "HEAD"]),
        *operator_routes(),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
    table += [Route(f"/v2/{op}", tasks.create_task, methods=["POST"]) for op in routes_tasks.STANDALONE]
    table += console.routes()  # the web console: static pages and its three endpoints
    return one_route_per_path(table)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
    message = "No such endpoint." if exc.status_code == 404 else str(exc.detail)
    return JSONResponse({"message": message, "code": code}, status_code=exc.status_code, headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    request_id = request_id_of(request) or ""
    log.exception(
        "internal error on %s %s (request %s)", request.method, request.url.path, request_id, exc_info=exc
    )
    # Outside the access middleware (Starlette answers 500 from its outermost layer): add the id here.
    return JSONResponse(
        {"message": "Internal server error.", "code": "INTERNAL_ERROR"},
        status_code=500,
        headers={"X-Request-Id": request_id} if request_id else None,
    )


def build_app(ctx: ServiceContext, faults: Faults | None = None, api: bool = True) -> Starlette:
    """The service's app; ``api=False`` (a worker) serves only the operator routes."""
    table: list[BaseRoute] = routes() if api else list(operator_routes())
    middleware = [Middleware(RateLimitHeaders, limiter=ctx.limiter)]
    if faults is not None:
        middleware.insert(0, Middleware(FaultInjector, faults=faults))
    middleware.insert(0, Middleware(AccessLog, metrics=ctx.metrics, routes=table))
    app = Starlette(
        routes=table,
        middleware=middleware,
        exception_handlers={ApiError: _api_error, HTTPException: _http_error, Exception: _internal_error},
    )
    app.state.ctx = ctx
    return app
