"""A small loopback HTTP receiver for job webhooks (``--wait webhook``).

It accepts ``POST <path>`` with a JSON body ``{event, job}``, checks the signature on the raw bytes
(``Service-Signature`` or ``CloudConvert-Signature``) when signing secrets are given, and hands the job to
whoever waits for it. Events that arrive before anyone waits are kept, so none is missed.

    async with WebhookReceiver(secrets=[hook.signing_secret]) as receiver:
        job = await api.create_job(tasks, webhook_url=receiver.url)
        job = await receiver.wait_for_job(job.id, max_wait=600)

Deliberately minimal HTTP/1.1 (one request per connection, Content-Length bodies): it only has to talk
to the service's webhook sender, through a tunnel or on loopback.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from mcv_pipelines.api.errors import WaitTimeout
from mcv_pipelines.api.models import Job, ModelError
from mcv_pipelines.api.webhooks import signature_from_headers, verify

__all__ = ["ReceivedEvent", "WebhookReceiver"]

ENDING_EVENTS = frozenset({"job.finished", "job.failed"})
_MAX_HEADER_LINES = 100
_READ_TIMEOUT = 15.0


@dataclass(frozen=True, slots=True)
class ReceivedEvent:
    event: str
    job: Job


class _Reject(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class WebhookReceiver:
    """Listens on ``host:port`` (port 0 picks a free one); ``url`` is what to give the service."""

    def __init__(
        self,
        *,
        secrets: Sequence[str] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = "/webhook",
        max_body: int = 10 * 1024 * 1024,
    ) -> None:
        self.secrets = tuple(s for s in secrets if s)
        self.host = host
        self.port = port
        self.path = path
        self.max_body = max_body
        self.events: list[ReceivedEvent] = []
        self.rejected = 0
        self._server: asyncio.Server | None = None
        self._ended: dict[str, Job] = {}
        self._waiters: dict[str, list[asyncio.Future[Job]]] = {}

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> WebhookReceiver:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def wait_for_job(self, job_id: str, *, max_wait: float | None = None) -> Job:
        """The job as its job.finished/job.failed event carried it."""
        if job_id in self._ended:
            return self._ended[job_id]
        future: asyncio.Future[Job] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(job_id, []).append(future)
        try:
            return await asyncio.wait_for(future, max_wait)
        except TimeoutError as exc:
            raise WaitTimeout(f"webhook for job {job_id}", max_wait or 0.0) from exc
        finally:
            waiting = self._waiters.get(job_id, [])
            if future in waiting:
                waiting.remove(future)

    def _deliver(self, event: str, job: Job) -> None:
        self.events.append(ReceivedEvent(event, job))
        if event not in ENDING_EVENTS and not job.ended:
            return
        self._ended[job.id] = job
        for future in self._waiters.pop(job.id, []):
            if not future.done():
                future.set_result(job)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        status, reason = 200, "ok"
        try:
            event, job = await asyncio.wait_for(self._read(reader), _READ_TIMEOUT)
            self._deliver(event, job)
        except _Reject as exc:
            status, reason = exc.status, exc.reason
            self.rejected += 1
        except (
            TimeoutError,
            asyncio.IncompleteReadError,
            ConnectionError,
            asyncio.LimitOverrunError,
            ValueError,
        ):
            status, reason = 400, "incomplete request"
            self.rejected += 1
        body = reason.encode()
        head = f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        try:
            writer.write(head.encode() + body)
            await writer.drain()
            writer.close()
            await writer.wait_closed()
        except ConnectionError:
            pass

    async def _read(self, reader: asyncio.StreamReader) -> tuple[str, Job]:
        request_line = (await reader.readline()).decode("latin-1").split()
        if len(request_line) != 3:
            raise _Reject(400, "bad request line")
        method, target, _ = request_line
        headers: dict[str, str] = {}
        for _ in range(_MAX_HEADER_LINES):
            line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
            if not line:
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        else:
            raise _Reject(431, "too many headers")
        if target.split("?")[0] != self.path:
            raise _Reject(404, "not found")
        if method != "POST":
            raise _Reject(405, "method not allowed")
        length = headers.get("content-length", "")
        if not length.isdigit():
            raise _Reject(411, "length required")
        if int(length) > self.max_body:
            raise _Reject(413, "payload too large")
        body = await reader.readexactly(int(length))
        if self.secrets:
            signature = signature_from_headers(headers)
            if not any(verify(body, signature, secret) for secret in self.secrets):
                raise _Reject(401, "bad signature")
        try:
            payload = json.loads(body)
            event = str(payload.get("event", ""))
            return event, Job.from_json(payload.get("job"))
        except (ValueError, AttributeError, ModelError) as exc:
            raise _Reject(400, "not a job event") from exc
