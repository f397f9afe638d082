"""The async client of the media conversion service: every endpoint, typed answers, honest errors.

    async with ApiClient(Settings.resolve()) as api:
        job = await api.create_job({"in": {"operation": "import/url", "url": "https://..."}}, tag="t1")
        job = await api.wait_job(job.id, max_wait=600)

Pass ``transport=`` (an httpx transport) to talk to anything else: a mock in tests, the embedded local
service in-process. Upload and download helpers never send the API key.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from mcv_pipelines.api import transfer
from mcv_pipelines.api.cookies import use_set_cookie_jar
from mcv_pipelines.api.errors import BadResponse, TransferError
from mcv_pipelines.api.h1 import lean_client
from mcv_pipelines.api.http import Kind, Requester
from mcv_pipelines.api.models import File, Job, ModelError, Operation, Task, UploadForm, User, Webhook
from mcv_pipelines.api.pacer import Pacer, RateLimitInfo
from mcv_pipelines.api.pagination import paginate
from mcv_pipelines.api.query import filter_params, include_param, register_credentials
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.api.shortcuts import TaskShortcuts
from mcv_pipelines.api.timeouts import Timeouts
from mcv_pipelines.api.waiting import wait_until_ended
from mcv_pipelines.errors import UsageError

__all__ = ["ApiClient"]

T = TypeVar("T")
TaskSpec = Mapping[str, Mapping[str, Any]]
_OPERATION = re.compile(r"[a-z0-9-]+(/[a-z0-9-]+)*")


def _id(value: str | int) -> str:
    return quote(str(value), safe="")


class ApiClient(TaskShortcuts):
    """One connection pool, one pacer, every endpoint. Use as ``async with`` or call ``aclose()``."""

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        pacer: Pacer | None = None,
    ) -> None:
        if not settings.base_url:
            raise UsageError("no service configured: set MCV_API_KEY or MCV_BASE_URL (or use --profile)")
        self.settings = settings
        self.base_url = settings.base_url.rstrip("/")
        self.sync_url = (settings.sync_url or f"{self.base_url}/sync").rstrip("/")
        self.timeouts = timeouts or Timeouts.of(settings)
        self.retry = retry or RetryPolicy()
        self.pacer = pacer or Pacer(clock=self.retry.clock, sleep=self.retry.sleep)
        # No default headers: the key is added per API request, so uploads/downloads never carry it.
        if transport is None:
            self.http = lean_client(timeout=self.timeouts.api())
        else:
            self.http = httpx.AsyncClient(transport=transport, timeout=self.timeouts.api())
        use_set_cookie_jar(self.http)
        self._req = Requester(
            self.http,
            api_key=settings.api_key,
            retry=self.retry,
            pacer=self.pacer,
            timeout=self.timeouts.api(),
        )

    def __repr__(self) -> str:
        return f"ApiClient(base_url={self.base_url!r}, sync_url={self.sync_url!r})"

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    @property
    def in_flight(self) -> tuple[str, ...]:
        """Requests sent and not answered yet, as ``METHOD URL`` (no query), transfers included; after
        a cancellation (a deadline), the ones it cut short."""
        return tuple(dict.fromkeys(self._req.in_flight + self._req.cut_short))

    @contextlib.contextmanager
    def _transfer(self, method: str, url: str) -> Iterator[None]:
        waiting = f"{method} {url.split('?', 1)[0]}"
        self._req.in_flight.append(waiting)
        try:
            yield
        except asyncio.CancelledError:
            self._req.cut_short.append(waiting)
            raise
        finally:
            self._req.in_flight.remove(waiting)

    @property
    def last_rate_limit(self) -> RateLimitInfo | None:
        """The X-RateLimit-* / Retry-After headers of the last answer that carried them."""
        return self.pacer.last

    # --- plumbing -------------------------------------------------------------------------------

    async def _one(
        self,
        method: str,
        path: str,
        parse: Callable[[Any], T],
        *,
        kind: Kind = Kind.IDEMPOTENT,
        params: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        host: str | None = None,
        http_timeout: httpx.Timeout | None = None,
    ) -> T:
        url = (host or self.base_url) + path
        data = await self._req.request(
            method, url, kind=kind, params=params, body=body, http_timeout=http_timeout
        )
        if not isinstance(data, Mapping) or not isinstance(data.get("data"), Mapping):
            raise BadResponse(method, path, "the answer has no 'data' object")
        try:
            return parse(data["data"])
        except ModelError as exc:
            raise BadResponse(method, path, str(exc)) from exc

    async def _none(self, method: str, path: str) -> None:
        await self._req.request(method, self.base_url + path, kind=Kind.IDEMPOTENT)

    def _list(self, path: str, params: Mapping[str, str], parse: Callable[[Any], T]) -> AsyncIterator[T]:
        return paginate(self._req, self.base_url + path, params or None, parse)

    async def _sync_get(self, path: str, parse: Callable[[Any], T], read: float) -> T:
        timeout = self.timeouts.api(read=read)
        return await self._one("GET", path, parse, kind=Kind.WAIT, host=self.sync_url, http_timeout=timeout)

    # --- jobs -----------------------------------------------------------------------------------

    @staticmethod
    def _job_body(
        tasks: TaskSpec,
        tag: str | None,
        ignore_error: bool | None,
        webhook_url: str | None,
        extra: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"tasks": {name: dict(task) for name, task in tasks.items()}}
        register_credentials(body["tasks"])
        optional = {"tag": tag, "ignore_error": ignore_error, "webhook_url": webhook_url}
        body.update({k: v for k, v in optional.items() if v is not None})
        body.update(extra or {})
        return body

    async def create_job(
        self,
        tasks: TaskSpec,
        *,
        tag: str | None = None,
        ignore_error: bool | None = None,
        webhook_url: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Job:
        """POST /v2/jobs. Never repeated once sent: a lost answer raises OutcomeUnknown."""
        body = self._job_body(tasks, tag, ignore_error, webhook_url, extra)
        return await self._one("POST", "/v2/jobs", Job.from_json, kind=Kind.CREATE, body=body)

    async def create_job_sync(
        self,
        tasks: TaskSpec,
        *,
        tag: str | None = None,
        ignore_error: bool | None = None,
        webhook_url: str | None = None,
        extra: Mapping[str, Any] | None = None,
        max_wait: float | None = None,
    ) -> Job:
        """POST {sync}/v2/jobs: answers when the job has ended (read timeout ``max_wait`` or sync_read)."""
        body = self._job_body(tasks, tag, ignore_error, webhook_url, extra)
        wait = self.timeouts.api(read=max_wait or self.timeouts.sync_read)
        return await self._one(
            "POST",
            "/v2/jobs",
            Job.from_json,
            kind=Kind.CREATE,
            body=body,
            host=self.sync_url,
            http_timeout=wait,
        )

    async def get_job(self, job_id: str, *, include: Iterable[str] | None = None) -> Job:
        return await self._one("GET", f"/v2/jobs/{_id(job_id)}", Job.from_json, params=include_param(include))

    async def wait_job(self, job_id: str, *, max_wait: float | None = None) -> Job:
        """Block on the sync host until the job ends; re-issue after drops until ``max_wait`` seconds."""
        path = f"/v2/jobs/{_id(job_id)}"
        return await wait_until_ended(
            lambda read: self._sync_get(path, Job.from_json, read),
            what=f"job {job_id}",
            max_wait=max_wait,
            retry=self.retry,
            sync_read=self.timeouts.sync_read,
        )

    def list_jobs(
        self,
        *,
        status: str | None = None,
        tag: str | None = None,
        include: Iterable[str] | None = None,
        per_page: int | None = None,
    ) -> AsyncIterator[Job]:
        """Every job matching the filters, page after page (``filter[tag]`` finds a run's job)."""
        params = filter_params(status=status, tag=tag, per_page=per_page) | include_param(include)
        return self._list("/v2/jobs", params, Job.from_json)

    async def delete_job(self, job_id: str) -> None:
        await self._none("DELETE", f"/v2/jobs/{_id(job_id)}")

    # --- tasks ----------------------------------------------------------------------------------

    async def get_task(self, task_id: str, *, include: Iterable[str] | None = None) -> Task:
        return await self._one(
            "GET", f"/v2/tasks/{_id(task_id)}", Task.from_json, params=include_param(include)
        )

    def list_tasks(
        self,
        *,
        job_id: str | None = None,
        status: str | None = None,
        operation: str | None = None,
        include: Iterable[str] | None = None,
        per_page: int | None = None,
    ) -> AsyncIterator[Task]:
        params = filter_params(job_id=job_id, status=status, operation=operation, per_page=per_page)
        return self._list("/v2/tasks", params | include_param(include), Task.from_json)

    async def cancel_task(self, task_id: str) -> Task:
        # Cancelling twice is harmless, so a lost answer may be repeated.
        return await self._one("POST", f"/v2/tasks/{_id(task_id)}/cancel", Task.from_json)

    async def retry_task(self, task_id: str) -> Task:
        """POST /v2/tasks/{id}/retry: a new task; never blindly repeated."""
        return await self._one("POST", f"/v2/tasks/{_id(task_id)}/retry", Task.from_json, kind=Kind.CREATE)

    async def delete_task(self, task_id: str) -> None:
        await self._none("DELETE", f"/v2/tasks/{_id(task_id)}")

    async def wait_task(self, task_id: str, *, max_wait: float | None = None) -> Task:
        """Block on the sync host until the task ends; re-issue after drops until ``max_wait`` seconds."""
        path = f"/v2/tasks/{_id(task_id)}"
        return await wait_until_ended(
            lambda read: self._sync_get(path, Task.from_json, read),
            what=f"task {task_id}",
            max_wait=max_wait,
            retry=self.retry,
            sync_read=self.timeouts.sync_read,
        )

    async def create_task(self, operation: str, payload: Mapping[str, Any]) -> Task:
        """POST /v2/{operation} (import/url, convert, ...): the created task. Never blindly repeated."""
        if not _OPERATION.fullmatch(operation):
            raise UsageError(f"{operation!r} is not an operation name")
        register_credentials(payload)
        return await self._one(
            "POST", f"/v2/{operation}", Task.from_json, kind=Kind.CREATE, body=dict(payload)
        )

    # --- catalog, account, webhooks -------------------------------------------------------------

    async def list_operations(
        self,
        *,
        operation: str | None = None,
        input_format: str | None = None,
        output_format: str | None = None,
        engine: str | None = None,
        engine_version: str | None = None,
        include: Iterable[str] | None = ("options", "engine_versions"),
        alternatives: bool = False,
    ) -> list[Operation]:
        """GET /v2/operations, every page."""
        params = filter_params(
            operation=operation,
            input_format=input_format,
            output_format=output_format,
            engine=engine,
            engine_version=engine_version,
            alternatives=alternatives or None,
        )
        return [
            op
            async for op in self._list("/v2/operations", params | include_param(include), Operation.from_json)
        ]

    async def convert_formats(
        self,
        *,
        input_format: str | None = None,
        output_format: str | None = None,
        engine: str | None = None,
        engine_version: str | None = None,
        include: Iterable[str] | None = None,
        alternatives: bool = False,
    ) -> list[Operation]:
        """GET /v2/convert/formats, every page."""
        params = filter_params(
            input_format=input_format,
            output_format=output_format,
            engine=engine,
            engine_version=engine_version,
            alternatives=alternatives or None,
        )
        path = "/v2/convert/formats"
        return [op async for op in self._list(path, params | include_param(include), Operation.from_json)]

    async def me(self) -> User:
        return await self._one("GET", "/v2/users/me", User.from_json)

    async def create_webhook(self, url: str, events: Sequence[str]) -> Webhook:
        # The signing secret is not masked: the user needs it once to set up the receiver.
        body = {"url": url, "events": list(events)}
        return await self._one("POST", "/v2/webhooks", Webhook.from_json, kind=Kind.CREATE, body=body)

    def list_webhooks(self, *, url: str | None = None, per_page: int | None = None) -> AsyncIterator[Webhook]:
        return self._list(
            "/v2/users/me/webhooks", filter_params(url=url, per_page=per_page), Webhook.from_json
        )

    async def delete_webhook(self, webhook_id: str | int) -> None:
        await self._none("DELETE", f"/v2/webhooks/{_id(webhook_id)}")

    # --- file transfer (no Authorization header) ------------------------------------------------

    async def upload_file(
        self, task_or_form: Task | UploadForm, path: str | Path, *, progress: transfer.Progress | None = None
    ) -> int:
        """Send ``path`` to an import/upload task's form, streamed; returns the final 2xx status.

        Given the task (not only its form), an upload whose connection was cut midway (the server
        behind a load balancer died) is sent again while the task still waits for its file; once the
        task has moved on, the file did arrive, and that is success (201, as the form answers)."""
        form = task_or_form
        task = form if isinstance(form, Task) else None
        if isinstance(form, Task):
            if form.result is None or form.result.form is None:
                name = form.name or form.id
                raise UsageError(f"task {name} has no upload form (is it an import/upload task?)")
            form = form.result.form
        cuts = 0
        while True:
            try:
                with self._transfer("POST", form.url):
                    return await transfer.upload(
                        self.http,
                        form.url,
                        form.parameters,
                        Path(path),
                        http_timeout=self.timeouts.transfer(),
                        retry=self.retry,
                        progress=progress,
                    )
            except TransferError as exc:
                # A 409 after a cut: the first try's file may have landed after all.
                unknown = exc.cut or (cuts > 0 and exc.status == 409)
                if task is None or not unknown or cuts >= self.retry.attempts:
                    raise
                cuts += 1
                if (await self.get_task(task.id)).status != "waiting":
                    return 201
                await self.retry.sleep(self.retry.backoff(cuts))
                progress = None  # the bytes of the cut try were counted already

    async def download(
        self,
        url: str,
        dest_path: str | Path,
        *,
        max_resumes: int = 5,
        progress: transfer.Progress | None = None,
    ) -> Path:
        """Stream ``url`` to ``dest_path`` atomically, resuming a dropped stream with Range."""
        with self._transfer("GET", url):
            return await transfer.download(
                self.http,
                url,
                Path(dest_path),
                http_timeout=self.timeouts.transfer(),
                retry=self.retry,
                max_resumes=max_resumes,
                progress=progress,
            )

    async def download_file(self, file: File, dest_dir: str | Path) -> Path:
        """Download a result file into ``dest_dir`` under its sanitised name."""
        if not file.url:
            raise UsageError(f"result file {file.filename!r} has no URL (only export/url files do)")
        return await self.download(file.url, Path(dest_dir) / transfer.safe_filename(file.filename))
