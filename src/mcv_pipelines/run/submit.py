"""One POST /v2/jobs per run, and the reconciliation that keeps it one when an answer is lost.

Every run tags its job ``<tag>~<run_id>`` (the pipeline's ``job.tag``, else its name, else the file's
stem), so the job of a run can always be found by ``filter[tag]``. When the creating POST's outcome is
unknown (sent, no usable answer), ``submit_job`` lists jobs by that tag before anything else: a job found
is the run's job; none found after a second look means the service did not create it, and only then is
the POST sent again. A second job for one run is never created on purpose.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import OutcomeUnknown
from mcv_pipelines.api.models import Job
from mcv_pipelines.errors import ServiceTrouble
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.run.events import EventSink

__all__ = ["TAG_SEPARATOR", "create_tagged", "find_job_by_tag", "job_tag", "new_run_id", "submit_job"]

TAG_SEPARATOR = "~"
_SUBMITS = 3  # the POST is sent again only after lookups proved the job absent
_SETTLE = 1.0  # seconds between the two lookups of one reconciliation


def new_run_id() -> str:
    """Ten lowercase hex characters: unique enough for one user's jobs, short enough to read."""
    return secrets.token_hex(5)


def job_tag(pipeline: RenderedPipeline, run_id: str) -> str:
    """``<pipeline tag or name or file stem>~<run_id>``."""
    base = pipeline.tag or pipeline.name or Path(pipeline.path).stem or "mcv"
    return f"{base}{TAG_SEPARATOR}{run_id}"


async def find_job_by_tag(client: ApiClient, tag: str) -> Job | None:
    """The job tagged exactly ``tag`` (the oldest when there are several), or None."""
    found: list[Job] = [job async for job in client.list_jobs(tag=tag)]
    found = [job for job in found if job.tag == tag]
    if not found:
        return None
    if len(found) > 1:
        found.sort(key=lambda job: (job.created_at is None, job.created_at, job.id))
    # The listing may omit tasks; the job itself always has them.
    return await client.get_job(found[0].id)


async def submit_job(
    client: ApiClient,
    pipeline: RenderedPipeline,
    tag: str,
    events: EventSink,
    *,
    webhook_url: str | None = None,
    ignore_error: bool | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Job:
    """Create the run's job (the whole graph in one request), reconciling lost answers by ``tag``."""
    body = pipeline.job_body()
    tasks: Mapping[str, Mapping[str, Any]] = body.pop("tasks")
    body.pop("tag", None)
    if webhook_url is not None:
        body["webhook_url"] = webhook_url
    if ignore_error is not None:
        body["ignore_error"] = ignore_error
    body.update(extra or {})
    return await create_tagged(client, tasks, body, tag, events)


async def create_tagged(
    client: ApiClient,
    tasks: Mapping[str, Mapping[str, Any]],
    body: Mapping[str, Any],
    tag: str,
    events: EventSink,
) -> Job:
    """POST /v2/jobs with ``tasks``, the job keys ``body`` and ``tag``; a lost answer is reconciled by
    listing jobs by ``tag`` before the POST is sent again (see the module docstring)."""
    last: OutcomeUnknown | None = None
    for _ in range(_SUBMITS):
        try:
            job = await client.create_job(tasks, tag=tag, extra=dict(body))
        except OutcomeUnknown as exc:
            last = exc
            events.emit(
                "notice",
                message=f"no usable answer to the job's creation ({exc.reason}); "
                f"looking for the job tagged {tag}",
            )
            job_or_none = await _look_twice(client, tag)
            if job_or_none is None:
                continue
            events.emit("reconciled", job_id=job_or_none.id, tag=tag)
            return job_or_none
        events.emit("submitted", job_id=job.id, tag=tag, tasks=len(job.tasks))
        return job
    raise ServiceTrouble(
        f"the job could not be created: {last}; no job tagged {tag!r} exists, so nothing was left behind"
    )


async def _look_twice(client: ApiClient, tag: str) -> Job | None:
    job = await find_job_by_tag(client, tag)
    if job is None:
        await client.retry.sleep(_SETTLE)  # a request still in flight lands now or never
        job = await find_job_by_tag(client, tag)
    return job
