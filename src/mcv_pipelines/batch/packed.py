"""One packed job of a batch, from its creation (or its finding again after a crash) to each row's end.

    await run_pack(ctx, members)                  # pending rows: a new job for all of them
    await resume_pack(ctx, members)               # rows a killed run left submitting or submitted

The rows move together in the journal until the job has ended (one commit for all: submitting with
the job's tag before the request, submitted with its id after), then each row ends alone: finished
once its own files are downloaded, failed with its own task's code and message. A row whose tasks all
finished is finished whatever another row of its job did.

A creation the service refuses outright (4xx: a row it finds invalid, a rate limit outlasting the
client's retries, no credits) puts the rows back to pending and runs each alone, as with
``--rows-per-job 1``, so that the refusal falls on the row it concerns.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import ApiError
from mcv_pipelines.api.models import Job, Task
from mcv_pipelines.batch.journal import Journal
from mcv_pipelines.batch.keys import attempt_tag
from mcv_pipelines.batch.manifest import ManifestRow
from mcv_pipelines.batch.packing import (
    AUTO_ROWS_PER_JOB,
    build_pack,
    job_keys,
    pack_tag,
    row_prefix,
    row_view,
)
from mcv_pipelines.batch.progress import Progress
from mcv_pipelines.batch.states import JournalRow, RowState
from mcv_pipelines.errors import InterruptedRun, McvError, ServiceTrouble
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.redact import redact
from mcv_pipelines.run.downloads import download_all, export_dirs
from mcv_pipelines.run.events import EventSink
from mcv_pipelines.run.follow import RunTimeout, follow_job
from mcv_pipelines.run.model import RunOptions, stored_files
from mcv_pipelines.run.runner import failures_of
from mcv_pipelines.run.submit import create_tagged, find_job_by_tag, job_tag
from mcv_pipelines.run.tracker import TaskTracker
from mcv_pipelines.run.uploads import PlannedUpload, upload_all

__all__ = ["Member", "PackContext", "auto_rows_per_job", "packable", "resume_pack", "run_pack"]


@dataclass
class Member:
    """A row of a pack: its journal state, its manifest row, its pipeline (None: it no longer renders)."""

    wanted: JournalRow
    row: ManifestRow
    pipeline: RenderedPipeline | None

    @property
    def key(self) -> str:
        return self.wanted.key


@dataclass
class PackContext:
    """What every pack of a batch shares; ``alone`` runs one pending row as ``--rows-per-job 1`` does,
    ``failed`` and ``trouble`` record a row's end or its service trouble as the executor does."""

    client: ApiClient
    journal: Journal
    run: RunOptions
    sink: EventSink
    progress: Progress | None
    alone: Callable[[JournalRow, ManifestRow], Awaitable[None]]
    failed: Callable[[str, str, str, ManifestRow, bool], None]
    trouble: Callable[[ServiceTrouble, Sequence[tuple[int, str]]], None]
    calm: Callable[[], None]
    base_dir: Path = field(default_factory=Path.cwd)


class _RowSinks:
    """Events of the pack, each labelled with its row (task events by their prefix, names unprefixed)."""

    def __init__(self, sink: EventSink, members: Sequence[Member]) -> None:
        self.sink = sink
        self.members = members
        self.by_prefix = {row_prefix(m.row.index): m for m in members}

    def each(self, kind: str, **data: Any) -> None:
        for member in self.members:
            self.sink.emit(kind, row=member.row.index, key=member.key, **data)

    def task(self, task: Task, data: dict[str, object]) -> None:
        self.emit("task", **data)

    def emit(self, kind: str, /, **data: Any) -> None:
        """An event about one task of the job (``data["task"]``, prefixed), told as its row's."""
        name = str(data.get("task") or "")
        prefix = name[: name.find("-") + 1]
        member = self.by_prefix.get(prefix)
        if member is None:
            self.sink.emit(kind, **data)
        else:
            self.sink.emit(kind, row=member.row.index, key=member.key,
                           **{**data, "task": name.removeprefix(prefix)})


class _PackTracker(TaskTracker):
    def __init__(self, sinks: _RowSinks) -> None:
        super().__init__(sinks.sink)
        self.sinks = sinks

    def emit_task(self, task: Task, data: dict[str, object]) -> None:
        self.sinks.task(task, data)


class _PackEvents:
    """The sink ``create_tagged`` reports to: the job's creation moves every row to submitted."""

    def __init__(self, ctx: PackContext, members: Sequence[Member], sinks: _RowSinks) -> None:
        self.ctx, self.members, self.sinks = ctx, members, sinks

    def emit(self, kind: str, /, **data: Any) -> None:
        if kind in ("submitted", "reconciled"):
            self.ctx.journal.mark_pack_submitted([m.key for m in self.members], data["job_id"])
            data = {**data, "rows": len(self.members)}
        self.sinks.each(kind, **data)


def packable(first: RenderedPipeline, other: RenderedPipeline) -> bool:
    """Rows go in one job only when their job-level keys agree."""
    return job_keys(first) == job_keys(other)


async def run_pack(ctx: PackContext, members: Sequence[Member]) -> None:
    """A new job for ``members`` (pending rows that render), then each row's end."""
    rows = [(m.row.index, m.pipeline) for m in members if m.pipeline is not None]
    first = members[0]
    assert len(rows) == len(members), "run_pack takes rows that render"
    assert first.pipeline is not None
    try:
        pack = build_pack(rows, ctx.base_dir)
    except McvError:  # a file gone since the rows were checked: each row alone says which
        for member in members:
            await ctx.alone(member.wanted, member.row)
        return
    attempt = attempt_tag(ctx.journal.batch_id, first.key, first.wanted.attempts + 1)
    tag = job_tag(first.pipeline, pack_tag(attempt, len(members)))
    keys = [m.key for m in members]
    ctx.journal.mark_pack_submitting(keys, tag)
    _started(ctx, members)
    sinks = _RowSinks(ctx.sink, members)
    try:
        job = await create_tagged(ctx.client, pack.tasks, job_keys(first.pipeline), tag,
                                  _PackEvents(ctx, members, sinks))
    except ApiError as exc:
        if exc.status is None or not 400 <= exc.status < 500:
            _troubled(ctx, members, exc)
            return
        # Refused as a whole: no job exists. Each row alone meets the refusal, or not.
        ctx.journal.mark_pack_pending(keys)
        _stopped(ctx, members)
        sinks.each("notice", message=f"the service refused the job of {len(members)} rows "
                                     f"({redact(str(exc))}); running them one by one")
        for member in members:
            await ctx.alone(_pending(ctx, member), member.row)
        return
    except ServiceTrouble as exc:
        _troubled(ctx, members, exc)
        return
    await _carry_on(ctx, members, job, sinks, uploads=pack.uploads, overwrite=ctx.run.overwrite)


async def resume_pack(ctx: PackContext, members: Sequence[Member]) -> None:
    """Rows an earlier run left in one packed job: found again by its tag (submitting) or followed by
    its id (submitted); when no job was created, they are sent again as a new pack."""
    sinks = _RowSinks(ctx.sink, members)
    first = members[0].wanted
    _started(ctx, members)
    try:
        if first.state is RowState.SUBMITTING:
            assert first.tag is not None
            job = await find_job_by_tag(ctx.client, first.tag)
            if job is None:
                ctx.journal.mark_pack_pending([m.key for m in members])
                sinks.each("row-requeued", tag=first.tag)
                _stopped(ctx, members)
                again = [Member(_pending(ctx, m), m.row, m.pipeline) for m in members]
                if all(m.pipeline is not None for m in again):
                    await run_pack(ctx, again)
                else:
                    for member in again:
                        await ctx.alone(member.wanted, member.row)
                return
            ctx.journal.mark_pack_submitted([m.key for m in members], job.id)
            sinks.each("reconciled", job_id=job.id, tag=first.tag, rows=len(members))
        else:
            assert first.job_id is not None
            job = await ctx.client.get_job(first.job_id)
    except ServiceTrouble as exc:
        _troubled(ctx, members, exc)
        return
    uploads: list[PlannedUpload] = []
    if not job.ended:
        waiting = {t.name for t in job.tasks if t.status == "waiting" and t.operation == "import/upload"}
        rows = [(m.row.index, m.pipeline) for m in members if m.pipeline is not None]
        try:
            uploads = [u for u in build_pack(rows, ctx.base_dir, inline_limit=-1).uploads
                       if u.task.name in waiting]
        except McvError as exc:
            for member in members:
                ctx.failed(member.key, "refused", str(exc), member.row, True)
            return
    # Files of these rows: a partial one from the killed run is replaced.
    await _carry_on(ctx, members, job, sinks, uploads=uploads, overwrite=True)


def _pending(ctx: PackContext, member: Member) -> JournalRow:
    """The row as the journal has it now that it is pending again (its attempts counted)."""
    found = ctx.journal.get(member.key)
    assert found is not None
    assert found.state is RowState.PENDING, found
    return found


async def _carry_on(ctx: PackContext, members: Sequence[Member], job: Job, sinks: _RowSinks, *,
                    uploads: list[PlannedUpload], overwrite: bool) -> None:
    """Send the job's files, wait for its end, then end each row."""
    run = ctx.run
    client = ctx.client
    tracker = _PackTracker(sinks)
    clock = client.retry.clock
    try:
        await upload_all(client, job, uploads, sinks, concurrency=run.upload_concurrency)
        deadline = None if run.timeout is None else clock() + run.timeout
        mode = "sync" if run.wait in ("auto", "webhook") else run.wait
        job = await follow_job(client, job, run, tracker, mode=mode, deadline=deadline)
    except RunTimeout as exc:
        for member in members:
            ctx.failed(member.key, "timeout", str(exc), member.row, True)
        return
    except (InterruptedRun, asyncio.CancelledError):
        raise asyncio.CancelledError from None
    except ServiceTrouble as exc:
        _troubled(ctx, members, exc)
        return
    except McvError as exc:
        for member in members:
            ctx.failed(member.key, "refused", str(exc), member.row, True)
        return
    ctx.calm()
    await asyncio.gather(*(_settle(ctx, member, job, overwrite) for member in members))


async def _settle(ctx: PackContext, member: Member, job: Job, overwrite: bool) -> None:
    """One row of an ended job: its files downloaded and the row finished, or the row failed."""
    view = row_view(job, member.row.index)
    pipeline = member.pipeline
    if pipeline is None:
        ctx.failed(member.key, "invalid-row", "the row no longer renders", member.row, True)
        return
    if view.status != "finished":
        failures = failures_of(view, pipeline)
        if failures:
            failure = failures[0]
            ctx.failed(member.key, failure.code or "job-error", failure.describe(), member.row, True)
        else:
            ctx.failed(member.key, f"job-{job.status}",
                       f"job {job.id} ended {job.status} before this row's tasks ran (another row's "
                       "task failed); run again with --retry-failed", member.row, True)
        return
    events = _OneRow(ctx.sink, member)
    try:
        files = await download_all(ctx.client, view, export_dirs(pipeline, ctx.run), events,
                                   overwrite=overwrite, concurrency=ctx.run.download_concurrency,
                                   max_resumes=ctx.run.download_resumes)
    except ServiceTrouble as exc:
        ctx.trouble(exc, [(member.row.index, member.key)])
        return
    except McvError as exc:
        ctx.failed(member.key, "refused", str(exc), member.row, True)
        return
    paths = [str(f.path) for f in files] + [f.location for f in stored_files(view.tasks)]
    credits_ = [t.credits for t in view.tasks if t.credits is not None]
    credits = sum(credits_) if credits_ else None
    ctx.journal.mark_finished(member.key, paths, credits)
    if ctx.progress is not None:
        ctx.progress.finish()
    ctx.sink.emit("row-finished", row=member.row.index, key=member.key, job_id=job.id, outputs=paths,
                  credits=credits)


class _OneRow:
    def __init__(self, sink: EventSink, member: Member) -> None:
        self.sink, self.member = sink, member

    def emit(self, kind: str, /, **data: Any) -> None:
        self.sink.emit(kind, row=self.member.row.index, key=self.member.key, **data)


def _started(ctx: PackContext, members: Sequence[Member]) -> None:
    if ctx.progress is not None:
        for _ in members:
            ctx.progress.start()


def _stopped(ctx: PackContext, members: Sequence[Member]) -> None:
    if ctx.progress is not None:
        ctx.progress.in_flight = max(ctx.progress.in_flight - len(members), 0)


def _troubled(ctx: PackContext, members: Sequence[Member], exc: ServiceTrouble) -> None:
    """Service trouble for the whole job: each row stays where the journal has it, for the next run."""
    ctx.trouble(exc, [(m.row.index, m.key) for m in members])


def auto_rows_per_job(remaining: int, concurrency: int, limit: int = AUTO_ROWS_PER_JOB) -> int:
    """Rows a job carries when ``--rows-per-job`` is not given: enough jobs to keep ``concurrency`` of
    them in flight about twice over, at most ``limit`` rows (and ``MAX_PACK_TASKS`` tasks) a job."""
    return max(1, min(limit, math.ceil(remaining / (2 * max(1, concurrency)))))
