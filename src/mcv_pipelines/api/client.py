"""The async client of the media conversion service: every endpoint, typed answers, honest errors.

    async with ApiClient(Settings.resolve()) as api:
        job = await api.create_job({"in": {"operation": "import/url", "url": "https://..."}}, tag="t1")
        job = await api.wait_job(job.id, timeout=600)

Pass ``transport=`` (an httpx transport) to talk to anything else: a mock in tests, the embedded local
service in-process. Upload and download helpers never send the API key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from mcv_pipelines.api import transfer
from mcv_pipelines.api.errors import BadResponse, NetworkError, ServerError, WaitTimeout
from mcv_pipelines.api.http import Kind, Requester
from mcv_pipelines.api.models import File, Job, ModelError, Operation, Task, UploadForm, User, Webhook
from mcv_pipelines.api.pacer import Pacer, RateLimitInfo
from mcv_pipelines.api.pagination import paginate
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import register_secret

__all__ = ["CREDENTIAL_FIELDS", "ApiClient", "Timeouts"]

T = TypeVar("T")
# Payload fields that hold storage credentials: registered as secrets before they are sent.
CREDENTIAL_FIELDS = frozenset(
    {"secret_access_key", "session_token", "storage_access_key", "sas_token", "private_key", "password"}
)


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``sync_read`` bounds one blocking wait request; the wait re-issues it to its deadline."""

    connect: float = 10.0
    read: float = 60.0
    write: float = 60.0
    pool: float = 30.0
    sync_read: float = 300.0
    transfer_read: float = 120.0

    def api(self, read: float | None = None) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=read or self.read, write=self.write, pool=self.pool)

    def transfer(self) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=self.transfer_read, write=self.transfer_read, pool=self.pool)


def _include(values: Iterable[str] | None) -> dict[str, str]:
    items = [v for v in (values or ()) if v]
    return {"include": ",".join(items)} if items else {}


def _filters(**values: str | int | bool | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        key = name if name in {"per_page", "page", "alternatives"} else f"filter[{name}]"
        out[key] = text
    return out


def _register_credentials(payload: Mapping[str, Any]) -> None:
    for key, value in payload.items():
        if key in CREDENTIAL_FIELDS and isinstance(value, str):
            register_secret(value)
        elif isinstance(value, Mapping):
            _register_credentials(value)


class ApiClient:
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
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        self.pacer = pacer or Pacer(clock=self.retry.clock, sleep=self.retry.sleep)
        # No default headers: the key is added per API request, so uploads/downloads never carry it.
        self.http = httpx.AsyncClient(transport=transport, timeout=self.timeouts.api())
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
        data = await self._req.request(
            method,
            (host or self.base_url) + path,
            kind=kind,
            params=params,
            body=body,
            http_timeout=http_timeout,
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

    # --- jobs -----------------------------------------------------------------------------------

    @staticmethod
    def _job_body(
        tasks: Mapping[str, Mapping[str, Any]],
        tag: str | None,
        ignore_error: bool | None,
        webhook_url: str | None,
        extra: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"tasks": {name: dict(task) for name, task in tasks.items()}}
        for task in tasks.values():
            _register_credentials(task)
        if tag is not None:
            body["tag"] = tag
        if ignore_error is not None:
            body["ignore_error"] = ignore_error
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        body.update(extra or {})
        return body

    async def create_job(
        self,
        tasks: Mapping[str, Mapping[str, Any]],
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
        tasks: Mapping[str, Mapping[str, Any]],
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
        return await self._one(
            "GET", f"/v2/jobs/{quote(job_id, safe='')}", Job.from_json, params=_include(include)
        )

    async def wait_job(self, job_id: str, *, max_wait: float | None = None) -> Job:
        """Block on the sync host until the job ends; re-issue after drops until ``max_wait`` seconds."""
        return await self._wait(
            f"/v2/jobs/{quote(job_id, safe='')}", f"job {job_id}", Job.from_json, max_wait
        )

    def list_jobs(
        self,
        *,
        status: str | None = None,
        tag: str | None = None,
        include: Iterable[str] | None = None,
        per_page: int | None = None,
    ) -> AsyncIterator[Job]:
        params = _filters(status=status, tag=tag, per_page=per_page) | _include(include)
        return self._list("/v2/jobs", params, Job.from_json)

    async def delete_job(self, job_id: str) -> None:
        await self._none("DELETE", f"/v2/jobs/{quote(job_id, safe='')}")

    # --- tasks ----------------------------------------------------------------------------------

    async def get_task(self, task_id: str, *, include: Iterable[str] | None = None) -> Task:
        path = f"/v2/tasks/{quote(task_id, safe='')}"
        return await self._one("GET", path, Task.from_json, params=_include(include))

    def list_tasks(
        self,
        *,
        job_id: str | None = None,
        status: str | None = None,
        operation: str | None = None,
        include: Iterable[str] | None = None,
        per_page: int | None = None,
    ) -> AsyncIterator[Task]:
        params = _filters(job_id=job_id, status=status, operation=operation, per_page=per_page) | _include(
            include
        )
        return self._list("/v2/tasks", params, Task.from_json)

    async def cancel_task(self, task_id: str) -> Task:
        # Cancelling twice is harmless, so a lost answer may be repeated.
        return await self._one("POST", f"/v2/tasks/{quote(task_id, safe='')}/cancel", Task.from_json)

    async def retry_task(self, task_id: str) -> Task:
        return await self._one(
            "POST", f"/v2/tasks/{quote(task_id, safe='')}/retry", Task.from_json, kind=Kind.CREATE
        )

    async def delete_task(self, task_id: str) -> None:
        await self._none("DELETE", f"/v2/tasks/{quote(task_id, safe='')}")

    async def wait_task(self, task_id: str, *, max_wait: float | None = None) -> Task:
        """Block on the sync host until the task ends; re-issue after drops until ``max_wait`` seconds."""
        path = f"/v2/tasks/{quote(task_id, safe='')}"
        return await self._wait(path, f"task {task_id}", Task.from_json, max_wait)

    async def _wait(self, path: str, what: str, parse: Callable[[Any], T], max_wait: float | None) -> T:
        clock = self.retry.clock
        deadline = None if max_wait is None else clock() + max_wait
        faults = 0
        while True:
            remaining = None if deadline is None else deadline - clock()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout(what, max_wait or 0.0)
            read = self.timeouts.sync_read if remaining is None else min(self.timeouts.sync_read, remaining)
            started = clock()
            try:
                item = await self._one(
                    "GET",
                    path,
                    parse,
                    kind=Kind.WAIT,
                    host=self.sync_url,
                    http_timeout=self.timeouts.api(read=read),
                )
            except (NetworkError, ServerError) as exc:
                timed_out = isinstance(exc.__cause__, httpx.ReadTimeout)
                faults = 0 if timed_out else faults + 1
                if deadline is None and faults >= self.retry.attempts:
                    raise
                if deadline is not None and clock() >= deadline:
                    raise WaitTimeout(what, max_wait or 0.0) from exc
                delay = self.retry.backoff(max(faults, 1))
                await self.retry.sleep(
                    delay if deadline is None else min(delay, max(0.0, deadline - clock()))
                )
                continue
            if getattr(item, "ended", True):
                return item
            faults = 0
            if clock() - started < 1.0:  # the sync host answered early: do not spin
                await self.retry.sleep(1.0)

    # --- single tasks: imports and processing ---------------------------------------------------

    async def create_task(self, operation: str, payload: Mapping[str, Any]) -> Task:
        """POST /v2/{operation} (import/url, convert, ...): the created task. Never blindly repeated."""
        if (
            not operation
            or ".." in operation
            or not all(p.replace("-", "").isalnum() for p in operation.split("/"))
        ):
            raise UsageError(f"{operation!r} is not an operation name")
        _register_credentials(payload)
        return await self._one(
            "POST", f"/v2/{operation}", Task.from_json, kind=Kind.CREATE, body=dict(payload)
        )

    async def import_url(self, url: str, **options: Any) -> Task:
        return await self.create_task("import/url", {"url": url, **options})

    async def import_upload(self, **options: Any) -> Task:
        return await self.create_task("import/upload", options)

    async def import_base64(self, file: str, filename: str, **options: Any) -> Task:
        return await self.create_task("import/base64", {"file": file, "filename": filename, **options})

    async def import_raw(self, file: str, filename: str, **options: Any) -> Task:
        return await self.create_task("import/raw", {"file": file, "filename": filename, **options})

    async def import_s3(self, **options: Any) -> Task:
        return await self.create_task("import/s3", options)

    async def import_azure_blob(self, **options: Any) -> Task:
        return await self.create_task("import/azure/blob", options)

    async def import_google_cloud_storage(self, **options: Any) -> Task:
        return await self.create_task("import/google-cloud-storage", options)

    async def convert(self, input: str | Sequence[str], output_format: str, **options: Any) -> Task:
        return await self.create_task("convert", {"input": input, "output_format": output_format, **options})

    async def thumbnail(self, input: str | Sequence[str], output_format: str, **options: Any) -> Task:
        return await self.create_task(
            "thumbnail", {"input": input, "output_format": output_format, **options}
        )

    async def optimize(self, input: str | Sequence[str], **options: Any) -> Task:
        return await self.create_task("optimize", {"input": input, **options})

    async def merge(self, input: Sequence[str], output_format: str = "pdf", **options: Any) -> Task:
        return await self.create_task(
            "merge", {"input": list(input), "output_format": output_format, **options}
        )

    async def capture_website(self, url: str, output_format: str, **options: Any) -> Task:
        return await self.create_task(
            "capture-website", {"url": url, "output_format": output_format, **options}
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
        params = _filters(
            operation=operation,
            input_format=input_format,
            output_format=output_format,
            engine=engine,
            engine_version=engine_version,
            alternatives=alternatives or None,
        ) | _include(include)
        return [op async for op in self._list("/v2/operations", params, Operation.from_json)]

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
        params = _filters(
            input_format=input_format,
            output_format=output_format,
            engine=engine,
            engine_version=engine_version,
            alternatives=alternatives or None,
        ) | _include(include)
        return [op async for op in self._list("/v2/convert/formats", params, Operation.from_json)]

    async def me(self) -> User:
        return await self._one("GET", "/v2/users/me", User.from_json)

    async def create_webhook(self, url: str, events: Sequence[str]) -> Webhook:
        hook = await self._one(
            "POST",
            "/v2/webhooks",
            Webhook.from_json,
            kind=Kind.CREATE,
            body={"url": url, "events": list(events)},
        )
        # The signing secret is not masked: the user needs it once to set up the receiver.
        return hook

    def list_webhooks(self, *, url: str | None = None, per_page: int | None = None) -> AsyncIterator[Webhook]:
        return self._list("/v2/users/me/webhooks", _filters(url=url, per_page=per_page), Webhook.from_json)

    async def delete_webhook(self, webhook_id: str | int) -> None:
        await self._none("DELETE", f"/v2/webhooks/{quote(str(webhook_id), safe='')}")

    # --- file transfer (no Authorization header) ------------------------------------------------

    async def upload_file(self, task_or_form: Task | UploadForm, path: str | Path) -> int:
        """Send ``path`` to an import/upload task's form, streamed; returns the final 2xx status."""
        form = task_or_form
        if isinstance(form, Task):
            if form.result is None or form.result.form is None:
                raise UsageError(
                    f"task {form.name or form.id} has no upload form (is it an import/upload task?)"
                )
            form = form.result.form
        return await transfer.upload(
            self.http,
            form.url,
            form.parameters,
            Path(path),
            http_timeout=self.timeouts.transfer(),
            retry=self.retry,
        )

    async def download(self, url: str, dest_path: str | Path, *, max_resumes: int = 5) -> Path:
        """Stream ``url`` to ``dest_path`` atomically, resuming a dropped stream with Range."""
        return await transfer.download(
            self.http,
            url,
            Path(dest_path),
            http_timeout=self.timeouts.transfer(),
            retry=self.retry,
            max_resumes=max_resumes,
        )

    async def download_file(self, file: File, dest_dir: str | Path) -> Path:
        """Download a result file into ``dest_dir`` under its sanitised name."""
        if not file.url:
            raise UsageError(f"result file {file.filename!r} has no URL (only export/url files do)")
        return await self.download(file.url, Path(dest_dir) / transfer.safe_filename(file.filename))
