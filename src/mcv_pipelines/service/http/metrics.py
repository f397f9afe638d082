"""What an operator watches, as Prometheus metrics: ``GET /metrics`` of every service process.

Each ``Metrics`` has its own registry, so several services in one process (tests, the embedded
service next to a served one) never mix their numbers. What goes in:

- requests: the access middleware calls ``observe_request`` (route templates, never raw paths);
- tasks: ``task_changed`` listens to the change feed and counts tasks as they end;
- leases lost, file bytes in and out: ``lease_lost()``, ``bytes_in(n)``, ``bytes_out(n)``, called by
  the workers, the upload form and the download links;
- queue depth: read at scrape time from a callback the state layer gives.

Several processes (API and workers) each count what they did themselves: changes heard from other
processes (``Change.remote``) are not counted again, so sums over processes are right. The queue depth
is the same database-wide number in every process: take its max, not its sum.

Example::

    metrics = Metrics(queue_depth=lambda: 3)
    metrics.observe_request("GET", "/v2/jobs/{job_id}", 200, 0.004)
    text = metrics.exposition("")[0].decode()    # Prometheus text format
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from mcv_pipelines.service.state.changes import Change

__all__ = ["METHODS", "Metrics", "metrics_page"]

log = logging.getLogger(__name__)

# Label values come from a fixed set: a client choosing the method must not grow the series count.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600)
_TASK_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600)
_ENDED = frozenset({"finished", "error"})


class Metrics:
    """The metrics of one service process, in a registry of its own (``registry``)."""

    def __init__(self, queue_depth: Callable[[], int] | None = None) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self._requests = Counter(
            "mcv_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ("method", "route", "status"),
            registry=r,
        )
        self._request_seconds = Histogram(
            "mcv_http_request_duration_seconds",
            "Time from a request's arrival to the end of its answer, by method and route template.",
            ("method", "route"),
            buckets=_REQUEST_BUCKETS,
            registry=r,
        )
        self._tasks = Counter(
            "mcv_tasks_ended",
            "Tasks that ended in this process, by operation, engine and status (finished or error).",
            ("operation", "engine", "status"),
            registry=r,
        )
        self._task_seconds = Histogram(
            "mcv_task_duration_seconds",
            "Time from a task's start to its end, by operation and engine.",
            ("operation", "engine"),
            buckets=_TASK_BUCKETS,
            registry=r,
        )
        self._leases_lost = Counter(
            "mcv_task_leases_lost",
            "Task leases that expired before their worker ended the task (the task runs again).",
            registry=r,
        )
        self._file_bytes = Counter(
            "mcv_file_bytes",
            "Bytes of files received through upload forms (in) and sent through download links (out).",
            ("direction",),
            registry=r,
        )
        # children by label values, looked up once each: ``labels()`` checks and copies its arguments
        # on every call, a tenth of a tiny row's metrics cost (bench/photos.py)
        self._request_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._task_children: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        self._bytes_in = self._file_bytes.labels("in")
        self._bytes_out = self._file_bytes.labels("out")
        self._queue_depth = queue_depth
        if queue_depth is not None:
            gauge = Gauge(
                "mcv_task_queue_depth",
                "Tasks waiting that could run now (their inputs have ended), database-wide.",
                registry=r,
            )
            gauge.set_function(self._read_queue_depth)

    # what the service calls
    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        method = method if method in METHODS else "other"
        children = self._request_children.get((method, route, status))
        if children is None:  # a race makes the same children twice: labels() answers alike
            children = (
                self._requests.labels(method, route, str(status)),
                self._request_seconds.labels(method, route),
            )
            self._request_children[(method, route, status)] = children
        children[0].inc()
        children[1].observe(seconds)

    def task_changed(self, change: Change) -> None:
        """A change feed listener: counts the tasks that ended in this process."""
        if change.kind != "task" or change.status not in _ENDED or change.remote:
            return
        operation, engine = change.operation or "", change.engine or ""
        children = self._task_children.get((operation, engine, change.status))
        if children is None:
            children = (
                self._tasks.labels(operation, engine, change.status),
                self._task_seconds.labels(operation, engine),
            )
            self._task_children[(operation, engine, change.status)] = children
        children[0].inc()
        if change.seconds is not None and change.seconds >= 0:
            children[1].observe(change.seconds)

    def lease_lost(self) -> None:
        self._leases_lost.inc()

    def bytes_in(self, count: int) -> None:
        self._bytes_in.inc(count)

    def bytes_out(self, count: int) -> None:
        self._bytes_out.inc(count)

    def counted(self, response: Response) -> Response:
        """``response``, its body bytes counted as bytes out while they are sent (ranges and HEAD
        count what was really sent)."""
        return _CountedResponse(response, self.bytes_out)

    # what Prometheus reads
    def exposition(self, accept: str) -> tuple[bytes, str]:
        """(body, content type) in the format the scraper's Accept header asks for."""
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type

    def _read_queue_depth(self) -> float:
        assert self._queue_depth is not None
        try:
            return float(self._queue_depth())
        except Exception:  # a scrape must answer even while the database is away
            log.warning("metrics: could not read the queue depth", exc_info=True)
            return math.nan


class _CountedResponse(Response):
    """Sends another response unchanged, counting the bytes of its body."""

    def __init__(self, inner: Response, count: Callable[[int], None]) -> None:
        # No super().__init__: this response has no body of its own; the inner one is sent.
        self.inner = inner
        self.status_code = inner.status_code
        self.background = None
        self._count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counting(message: Message) -> None:
            if message["type"] == "http.response.body":
                self._count(len(message.get("body", b"")))
            await send(message)

        await self.inner(scope, receive, counting)


async def metrics_page(request: Request) -> Response:
    """GET /metrics: open, like /healthz; keep the port internal (see the deployment README)."""
    metrics: Metrics = request.app.state.ctx.metrics
    body, content_type = await run_in_threadpool(metrics.exposition, request.headers.get("accept", ""))
    return Response(body, media_type=None, headers={"Content-Type": content_type})
