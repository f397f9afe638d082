"""Follow a job to its end: ``sync`` (a blocking wait on the sync host), ``poll`` or ``webhook``.

Every mode also polls for live task status (at ``status_interval``; slowly in webhook mode), and
whichever sees the end first wins, so a lost webhook or a cut sync request never strands a run. Past
the deadline ``RunTimeout`` is raised and the job is left alone.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import NetworkError, ServerError, WaitTimeout
from mcv_pipelines.api.models import Job
from mcv_pipelines.api.receiver import WebhookReceiver
from mcv_pipelines.errors import ServiceTrouble
from mcv_pipelines.run.events import EventSink
from mcv_pipelines.run.model import RunOptions
from mcv_pipelines.run.tracker import TaskTracker

__all__ = ["RunTimeout", "follow_job", "resume_hint"]


def resume_hint(job_id: str, download_dir: str | None = None) -> str:
    return f"mcv jobs wait {job_id} --download {download_dir or 'DIR'}"


class RunTimeout(ServiceTrouble):
    """The run's --timeout passed before the job ended; the job keeps running."""

    def __init__(
        self, job_id: str | None, seconds: float, download_dir: str | None = None, message: str | None = None
    ) -> None:
        self.job_id = job_id
        self.seconds = seconds
        super().__init__(
            message
            or f"job {job_id} did not end within {seconds:g} s; it was left running on the service. "
            f"Follow it later with: {resume_hint(job_id or 'JOB_ID', download_dir)}"
        )


async def follow_job(
    client: ApiClient,
    job: Job,
    options: RunOptions,
    tracker: TaskTracker,
    *,
    mode: str,
    deadline: float | None,
    receiver: WebhookReceiver | None = None,
) -> Job:
    """Wait until ``job`` has ended (or raise ``RunTimeout`` at ``deadline``, a monotonic time)."""
    tracker.observe(job)
    if job.ended:
        return job
    clock = client.retry.clock
    racers: list[Coroutine[Any, Any, Job]] = []
    if mode == "sync":
        racers.append(_sync(client, job.id, deadline, clock))
        if options.status_interval > 0:
            racers.append(_poll(client, job.id, tracker, options.status_interval, options.status_interval))
    elif mode == "webhook":
        if receiver is None:
            raise ValueError("webhook mode needs a receiver")
        racers.append(_webhook(client, receiver, job.id, deadline, clock))
        racers.append(
            _poll(
                client,
                job.id,
                tracker,
                options.max_poll_interval,
                options.max_poll_interval,
                first=options.webhook_grace,
                events=tracker.events,
            )
        )
    else:
        racers.append(_poll(client, job.id, tracker, options.poll_interval, options.max_poll_interval))
    timeout = None if deadline is None else max(0.0, deadline - clock())
    ended = await _first(racers, timeout)
    if ended is None:
        raise RunTimeout(job.id, options.timeout or 0.0)
    tracker.observe(ended)
    return ended


async def _first(racers: list[Coroutine[Any, Any, Job]], limit: float | None) -> Job | None:
    """The result of whichever racer ends first (its error if it failed); None at the timeout."""
    tasks = [asyncio.ensure_future(r) for r in racers]
    try:
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                return None
            for task in done:
                if task.exception() is None:
                    return task.result()
            if not pending:  # every racer failed: the first failure says why
                raise next(iter(done)).exception()  # type: ignore[misc]  # never None: every racer failed
        return None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _sync(client: ApiClient, job_id: str, deadline: float | None, clock: Any) -> Job:
    remaining = None if deadline is None else max(0.1, deadline - clock())
    try:
        return await client.wait_job(job_id, max_wait=remaining)
    except WaitTimeout:
        await asyncio.Event().wait()  # the deadline is the caller's to announce
        raise


async def _webhook(
    client: ApiClient, receiver: WebhookReceiver, job_id: str, deadline: float | None, clock: Any
) -> Job:
    remaining = None if deadline is None else max(0.1, deadline - clock())
    try:
        await receiver.wait_for_job(job_id, max_wait=remaining)
    except WaitTimeout:
        await asyncio.Event().wait()
    # The event only wakes us: the job is read back from the API, so a forged event changes nothing.
    return await client.get_job(job_id)


async def _poll(
    client: ApiClient,
    job_id: str,
    tracker: TaskTracker,
    interval: float,
    ceiling: float,
    *,
    first: float = 0.0,
    events: EventSink | None = None,
) -> Job:
    """GET the job until it has ended; the pause grows while nothing changes and resets when it does."""
    if first:
        await client.retry.sleep(first)
        if events is not None:
            events.emit("notice", message=f"no webhook yet after {first:g} s: polling the job as well")
    pause = interval
    faults = 0
    while True:
        try:
            job = await client.get_job(job_id)
        except (NetworkError, ServerError):
            faults += 1  # the client already retried; keep following unless it persists
            if faults >= client.retry.attempts:
                raise
            await client.retry.sleep(client.retry.backoff(faults))
            continue
        faults = 0
        before = dict(tracker.states)
        tracker.observe(job)
        if job.ended:
            return job
        pause = interval if tracker.states != before else min(ceiling, pause * 1.5)
        await client.retry.sleep(pause * random.uniform(0.8, 1.2))  # noqa: S311 - jitter, not security
