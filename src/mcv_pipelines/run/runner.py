"""One run of a rendered pipeline against a service: submit, upload, follow, download, report.

    outcome = await run_pipeline(client, pipeline, RunOptions(out_dir=Path("out")), events)
    outcome.status        # "finished" | "error" | "cancelled"
    outcome.failures      # TaskFailure(name, code, message, location) for each failed task
    outcome.files         # DownloadedFile(task, path, size)

Raises only ``McvError``s: ``UsageError`` before any request (a missing upload file, a download
target that exists without ``overwrite``), ``ServiceTrouble`` (and ``RunTimeout``, carrying
``job_id``) when the service cannot be used, ``InterruptedRun`` (carrying ``job_id`` when there is
one) when the run's task is cancelled (Ctrl-C). A failed job is not an exception: it is an outcome
with ``status == "error"``; the caller chooses the exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.api.receiver import WebhookReceiver
from mcv_pipelines.errors import InterruptedRun, McvError
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.redact import register_secret
from mcv_pipelines.run.deadline import Stage, timed_out
from mcv_pipelines.run.downloads import check_known_targets, download_all, export_dirs
from mcv_pipelines.run.events import EventSink
from mcv_pipelines.run.follow import RunTimeout, follow_job, resume_hint
from mcv_pipelines.run.model import RunOptions, RunOutcome, TaskFailure, stored_files
from mcv_pipelines.run.submit import job_tag, new_run_id, submit_job
from mcv_pipelines.run.tracker import TaskTracker
from mcv_pipelines.run.uploads import PlannedUpload, plan_uploads, upload_all

__all__ = ["RunInterrupted", "failures_of", "preflight", "run_pipeline"]


class RunInterrupted(InterruptedRun):
    """Ctrl-C during a run; ``job_id`` is None when the job was not created (as far as we know)."""

    def __init__(self, message: str, job_id: str | None, tag: str) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.tag = tag


def failures_of(job: Job, pipeline: RenderedPipeline) -> tuple[TaskFailure, ...]:
    """Each task in error, with where it is written; causes first, tasks failed by their input last."""
    found: list[TaskFailure] = []
    for task in job.tasks:
        if task.status != "error":
            continue
        name = task.name or task.id
        source = pipeline.tasks.get(name)
        found.append(TaskFailure(name, task.code, task.message, source.location if source else None))
    found.sort(key=lambda f: (f.code or "").startswith("INPUT_TASK"))
    return tuple(found)


def preflight(pipeline: RenderedPipeline, options: RunOptions) -> list[PlannedUpload]:
    """Checks that need no service: upload files readable, known download targets free."""
    uploads = plan_uploads(pipeline, options.base_dir or Path.cwd())
    check_known_targets(pipeline, options)
    return uploads


@contextlib.asynccontextmanager
async def _receiver(mode: str, options: RunOptions) -> AsyncIterator[WebhookReceiver | None]:
    if mode != "webhook":
        yield None
        return
    host, port = options.listen
    secrets_ = (options.webhook_secret,) if options.webhook_secret else ()
    async with WebhookReceiver(secrets=secrets_, host=host, port=port) as receiver:
        yield receiver


async def run_pipeline(
    client: ApiClient, pipeline: RenderedPipeline, options: RunOptions, events: EventSink
) -> RunOutcome:
    """Run ``pipeline`` (already checked) on the service behind ``client``; see the module docstring.

    ``options.timeout`` bounds the whole run: creation and its reconciliation by tag, uploads,
    following and downloads (issue 14: three unanswered requests of 60 s each outlasted --timeout 10).
    """
    stage = Stage(job_tag(pipeline, options.run_id or new_run_id()))
    if options.timeout is None:
        return await _run(client, pipeline, options, events, stage)
    stage.deadline = asyncio.get_running_loop().time() + options.timeout
    try:
        async with asyncio.timeout_at(stage.deadline):
            return await _run(client, pipeline, options, events, stage)
    except TimeoutError:
        exc = timed_out(client, options, stage)
        events.emit("timeout", job_id=exc.job_id, tag=stage.tag, seconds=exc.seconds)
        raise exc from None


async def _run(
    client: ApiClient, pipeline: RenderedPipeline, options: RunOptions, events: EventSink, stage: Stage
) -> RunOutcome:
    clock = client.retry.clock
    started = clock()
    uploads = preflight(pipeline, options)
    dirs = export_dirs(pipeline, options)
    tag = stage.tag
    mode = "sync" if options.wait == "auto" else options.wait
    tracker = TaskTracker(events)
    job: Job | None = None
    try:
        async with _receiver(mode, options) as receiver:
            webhook_url = None
            extra: dict[str, str] = {}
            if receiver is not None:
                webhook_url = options.public_url or receiver.url
                if options.webhook_secret and options.declare_webhook_secret:
                    register_secret(options.webhook_secret)
                    extra["webhook_signing_secret"] = options.webhook_secret
            stage.doing = "creating the job"
            job = await submit_job(
                client,
                pipeline,
                tag,
                events,
                webhook_url=webhook_url,
                ignore_error=True if options.keep_going else None,
                extra=extra,
            )
            stage.job = job
            tracker.observe(job)
            deadline = None if options.timeout is None else started + options.timeout
            stage.doing = f"uploading {len(uploads)} file(s) for job {job.id}"
            uploaded = await upload_all(client, job, uploads, events, concurrency=options.upload_concurrency)
            stage.doing = f"waiting for job {job.id} to end"
            job = await follow_job(
                client, job, options, tracker, mode=mode, deadline=deadline, receiver=receiver
            )
        failures = failures_of(job, pipeline)
        files = []
        if job.status == "finished" or options.keep_going:
            stage.doing = f"downloading the files of job {job.id}"
            files = await download_all(
                client,
                job,
                dirs,
                events,
                overwrite=options.overwrite,
                concurrency=options.download_concurrency,
                max_resumes=options.download_resumes,
            )
    except asyncio.CancelledError:
        loop = asyncio.get_running_loop()
        if stage.deadline is not None and loop.time() >= stage.deadline:
            raise  # --timeout passed (run_pipeline says so), not Ctrl-C
        raise await _interrupted(client, job, tag, options, events) from None
    except RunTimeout as exc:
        events.emit("timeout", job_id=exc.job_id, tag=tag, seconds=exc.seconds)
        raise
    except McvError as exc:
        events.emit("failed", job_id=job.id if job else None, tag=tag, error=str(exc))
        raise
    credits_ = [t.credits for t in job.tasks if t.credits is not None]
    outcome = RunOutcome(
        job_id=job.id,
        tag=tag,
        status=job.status,
        tasks=tuple(tracker.states.values()),
        failures=failures,
        files=tuple(files),
        stored=stored_files(job.tasks),
        credits=sum(credits_) if credits_ else None,
        elapsed=clock() - started,
        uploaded_bytes=uploaded,
    )
    kind = "finished" if outcome.ok else "failed"
    events.emit(
        kind,
        job_id=job.id,
        status=job.status,
        credits=outcome.credits,
        failures=[
            {
                "task": f.name,
                "code": f.code,
                "message": f.message,
                "location": str(f.location) if f.location else None,
            }
            for f in failures
        ],
        files=[{"path": str(f.path), "size": f.size} for f in files],
        elapsed=round(outcome.elapsed, 3),
    )
    return outcome


async def _interrupted(
    client: ApiClient, job: Job | None, tag: str, options: RunOptions, events: EventSink
) -> McvError:
    if job is None:
        events.emit("interrupted", job_id=None, tag=tag)
        return RunInterrupted(
            f"interrupted before the job was created; if its request got through, the job is tagged "
            f"{tag!r} (see `mcv jobs list --tag {tag}`)",
            None,
            tag,
        )
    cancelled = 0
    if options.cancel_on_interrupt:
        with contextlib.suppress(McvError, TimeoutError):
            async with asyncio.timeout(10):
                for task in (await client.get_job(job.id)).tasks:
                    if task.ended:
                        continue
                    try:
                        await client.cancel_task(task.id)
                    except McvError:  # it ended meanwhile (a cancelled input fails its dependants)
                        continue
                    cancelled += 1
    events.emit("interrupted", job_id=job.id, tag=tag, cancelled_tasks=cancelled)
    out = str(options.out_dir) if options.out_dir else None
    if options.cancel_on_interrupt:
        message = f"interrupted; cancelled {cancelled} unfinished task(s) of job {job.id}"
    else:
        message = (
            f"interrupted; job {job.id} was left running. Resume following it with: "
            f"{resume_hint(job.id, out)}"
        )
    return RunInterrupted(message, job.id, tag)
