"""Webhook delivery: job events to subscribed webhooks and to a job's own webhook_url.

The body is ``{event, job}``; ``Service-Signature`` is the hex HMAC-SHA256 of the raw body keyed with
the webhook's signing secret. Network errors and 5xx are retried 3 times with growing waits; a 410
disables the webhook; ``failing``, ``last_error_at`` and ``last_response_code`` follow each delivery.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import httpx

from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.render import job_json
from mcv_pipelines.service.state.store import Doc, Store, now_iso

__all__ = ["EVENTS", "WebhookDispatcher", "signature"]

log = logging.getLogger(__name__)
EVENTS = ("job.created", "job.finished", "job.failed")


def signature(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _ignore(status: int | None) -> None:
    del status


class WebhookDispatcher:
    def __init__(
        self, config: ServiceConfig, store: Store, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.config = config
        self.store = store
        self._pool = ThreadPoolExecutor(4, thread_name_prefix="mcv-webhook")
        self._lock = threading.Lock()
        self._created: dict[str, Future[None]] = {}
        self._client = httpx.Client(timeout=10.0, transport=transport)
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def job_event(self, event: str, job_id: str, job: Doc | None = None) -> None:
        """Queue deliveries of ``event`` for this job; never blocks the caller.

        A job's end is delivered after its job.created delivery is done, so receivers see them in order.
        """
        if self._stopping.is_set():
            return
        if not self._heard(event, job_id, job):
            # Nobody to tell: no hand-off to the pool, no job rendered (most jobs; issue 15).
            if event != "job.created":
                with self._lock:
                    self._created.pop(job_id, None)
            return
        with self._lock:
            before = self._created.pop(job_id, None) if event != "job.created" else None
            try:
                future = self._pool.submit(self._deliver_all, event, job_id, before)
            except RuntimeError:  # the pool shut down meanwhile
                return
            if event == "job.created":
                self._created[job_id] = future

    def _heard(self, event: str, job_id: str, job: Doc | None) -> bool:
        """Whether a delivery of ``event`` has a receiver: the job's own URL or a user webhook."""
        job = job or self.store.get_job(job_id)
        if job is None:
            return False
        if job.get("webhook_url") and event != "job.created":
            return True
        if not self.store.may_have_webhooks(job["user_id"]):
            return False
        hooks = self.store.user_webhooks(job["user_id"])
        return any(not hook.get("disabled") and event in hook.get("events", []) for hook in hooks)

    def _deliver_all(self, event: str, job_id: str, before: Future[None] | None = None) -> None:
        if before is not None:
            with contextlib.suppress(Exception):
                before.result(timeout=60)
        job = self.store.get_job(job_id)
        if job is None:
            return
        body = json.dumps(
            {
                "event": event,
                "job": job_json(job, self.store.job_tasks(job_id), self.config.public_url),
            }
        ).encode()
        for hook in self.store.user_webhooks(job["user_id"]):
            if not hook.get("disabled") and event in hook.get("events", []):
                self._deliver(hook["url"], body, hook["signing_secret"], functools.partial(self._note, hook))
        if job.get("webhook_url") and event != "job.created":
            self._deliver(job["webhook_url"], body, job["webhook_secret"], _ignore)

    def _deliver(self, url: str, body: bytes, secret: str, note: Callable[[int | None], None]) -> None:
        headers = {
            "Content-Type": "application/json",
            "Service-Signature": signature(secret, body),
            # The header name the public instance uses, so receivers written for it work unchanged.
            "CloudConvert-Signature": signature(secret, body),
            "User-Agent": "mcv-local-service",
        }
        for attempt in range(1 + len(self.config.webhook_backoff)):
            if attempt and self._stopping.wait(self.config.webhook_backoff[attempt - 1]):
                return
            try:
                status: int | None = self._client.post(url, content=body, headers=headers).status_code
            except httpx.HTTPError as exc:
                log.info("webhook %s: %s", url, exc)
                status = None
            note(status)
            if status is not None and status < 500:
                return

    def _note(self, hook: Doc, status: int | None) -> None:
        def change(h: Doc) -> None:
            if status is not None and status < 300:
                h["failing"] = False
                h["last_response_code"] = str(status)
                return
            h["failing"] = True
            h["last_error_at"] = now_iso()
            h["last_response_code"] = "NETWORK_ERROR" if status is None else str(status)
            if status == 410:
                h["disabled"] = True

        with self.store.transaction():  # reentrant: read and write the webhook as one step
            current = self.store.get_webhook(hook["id"])
            if current is not None:
                change(current)
                current["updated_at"] = now_iso()
                self.store.save_webhook(current)
