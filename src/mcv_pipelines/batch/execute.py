"""Running a prepared batch: rows with bounded concurrency over one shared client, journaled per step.

    outcome = await execute_batch(client, journal, manifest, renderer, BatchOptions(concurrency=4))

Work comes from the journal (rows not yet finished or failed, in manifest order, a page at a time)
joined with a second stream of the manifest (the journal's params are masked; real values come from
the manifest again), so memory stays flat. Per row:

- pending: ``mark_submitting(key, tag)`` with a tag unique to the attempt, then ``run_pipeline``;
  the runner's ``submitted``/``reconciled`` event marks the row submitted with its job id; the end
  marks it finished (outputs, credits) or failed (code, message).
- submitting (a crash between the request and its answer): jobs are listed by the row's tag; a job
  found is followed, none found puts the row back to pending and it is sent again.
- submitted: the job is followed by id (uploads still waiting are sent again), never resubmitted.

Job tags: ``<pipeline tag>~mcv-<batch id>-<key hash>-<attempt>`` (``job_tag`` with the attempt tag as
the run id), so the pipeline's own tag stays first and listing ``filter[tag]`` finds exactly one
attempt. A row's ``ServiceTrouble`` leaves it in its state for the next run to resume; after
``trouble_limit`` of them in a row no new rows are started. Cancellation (Ctrl-C) leaves every row in
its last committed state and raises ``BatchInterrupted``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.batch.journal import Journal
from mcv_pipelines.batch.keys import attempt_tag, row_key
from mcv_pipelines.batch.manifest import Manifest, ManifestRow
from mcv_pipelines.batch.packed import Member, PackContext, auto_rows_per_job, packable, resume_pack, run_pack
from mcv_pipelines.batch.packing import MAX_PACK_TASKS, is_pack_tag
from mcv_pipelines.batch.prepare import RowRenderer
from mcv_pipelines.batch.progress import Progress
from mcv_pipelines.batch.shard import Shard
from mcv_pipelines.batch.states import JournalRow, RowState, StateCounts
from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.errors import InterruptedRun, McvError, ServiceTrouble
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.redact import redact
from mcv_pipelines.run.downloads import download_all, export_dirs
from mcv_pipelines.run.events import EventSink, NullEvents
from mcv_pipelines.run.follow import RunTimeout, follow_job
from mcv_pipelines.run.model import RunOptions, stored_files
from mcv_pipelines.run.runner import failures_of, run_pipeline
from mcv_pipelines.run.submit import find_job_by_tag, job_tag
from mcv_pipelines.run.tracker import TaskTracker
from mcv_pipelines.run.uploads import plan_uploads, upload_all

__all__ = ["BatchInterrupted", "BatchOptions", "BatchOutcome", "execute_batch"]


@dataclass(frozen=True)
class BatchOptions:
    """How the rows run. ``run`` applies to every row (its ``run_id`` is replaced per attempt)."""

    concurrency: int = 4
    fail_fast: bool = False
    run: RunOptions = field(default_factory=lambda: RunOptions(status_interval=0.0))
    key_column: str | None = None
    shard: Shard | None = None
    trouble_limit: int = 3
    rows_per_job: int | None = None
    """Rows one job carries: None chooses from the rows left and the concurrency; 1 is a job per row."""
    base_dir: Path | None = None
    """Where the rows' relative upload paths start (the current directory when None)."""


@dataclass(frozen=True)
class BatchOutcome:
    counts: StateCounts
    troubled: int = 0
    """Rows left in flight by service trouble (run the command again to resume them)."""
    stopped_early: bool = False
    """--fail-fast or repeated service trouble stopped new rows from starting."""
    last_trouble: str | None = None

    @property
    def ok(self) -> bool:
        return self.counts.failed == 0 and self.counts.done == self.counts.total


class BatchInterrupted(InterruptedRun):
    """Ctrl-C: every row is in its last committed state; the same command resumes."""


def _work(journal: Journal, manifest: Manifest, key_column: str | None,
          shard: Shard | None) -> Iterator[tuple[JournalRow, ManifestRow]]:
    """Unfinished journal rows joined with their manifest rows (both in manifest order)."""
    rows = iter(manifest)
    for wanted in journal.rows(RowState.PENDING, RowState.SUBMITTING, RowState.SUBMITTED):
        for row in rows:
            if row.index == wanted.index:
                break
        else:
            raise McvError(f"{journal.path}: row {wanted.index} is not in {manifest.label}; "
                           "run with --restart")
        if row_key(row, key_column) != wanted.key:
            raise McvError(f"{journal.path}: row {wanted.index} has another key in {manifest.label}; "
                           "run with --restart")
        yield wanted, row


_Rendered = tuple[RenderedPipeline | None, list[Diagnostic]]
_UPLOAD_BUDGET = 64 * 1024 * 1024
"""Bytes of files uploaded to one packed job at most (a row larger than it goes in a job alone)."""
_AUTO_BYTES = 4 * 1024 * 1024
"""Bytes of upload files a job gathers when the rows a job is chosen automatically. A job's files
come home only once all its rows ended: rows with large files gain little from sharing a job (their
time is the transfer and the conversion, not the requests) and would wait for each other."""


@dataclass
class _Alone:
    """A row run in a job of its own: ``--rows-per-job 1``, a row that does not render, or a row an
    earlier run sent alone."""

    wanted: JournalRow
    row: ManifestRow
    rendered: _Rendered | None = None


@dataclass
class _Group:
    """Rows of one packed job: pending rows to send together, or rows an earlier run packed."""

    members: list[Member] = field(default_factory=list)
    tasks: int = 0
    upload_bytes: int = 0


def _groups(work: Iterator[tuple[JournalRow, ManifestRow]], renderer: RowRenderer, per_job: int,
            base_dir: Path, budget: int = _UPLOAD_BUDGET) -> Iterator[_Alone | _Group]:
    """The rows to run, grouped as they will be sent: consecutive pending rows fill a pack up to
    ``per_job`` rows (``MAX_PACK_TASKS`` tasks, ``budget`` bytes of uploads, equal job keys);
    rows an earlier run left in one packed job come back together (same tag, or same job id)."""
    fresh = _Group()
    resumed = _Group()
    for wanted, row in work:
        if wanted.state is not RowState.PENDING:
            if not is_pack_tag(wanted.tag):
                yield _Alone(wanted, row)
                continue
            if resumed.members and not _same_job(resumed.members[0].wanted, wanted):
                yield resumed
                resumed = _Group()
            resumed.members.append(Member(wanted, row, renderer.render(row, wanted.key, checked=True)[0]))
            continue
        rendered = renderer.render(row, wanted.key, checked=True)
        pipeline = rendered[0]
        if per_job == 1 or pipeline is None:
            yield _Alone(wanted, row, rendered)
            continue
        tasks = len(pipeline.tasks)
        size = sum(u.size for u in plan_uploads(pipeline, base_dir))
        if fresh.members and not _fits(fresh, pipeline, tasks, size, per_job, budget):
            yield fresh
            fresh = _Group()
        fresh.members.append(Member(wanted, row, pipeline))
        fresh.tasks += tasks
        fresh.upload_bytes += size
    for group in (resumed, fresh):
        if group.members:
            yield group


def _fits(group: _Group, pipeline: RenderedPipeline, tasks: int, size: int, per_job: int,
          budget: int) -> bool:
    first = group.members[0].pipeline
    return (len(group.members) < per_job and group.tasks + tasks <= MAX_PACK_TASKS
            and group.upload_bytes + size <= budget
            and first is not None and packable(first, pipeline))


def _same_job(first: JournalRow, other: JournalRow) -> bool:
    if first.state is not other.state:
        return False
    if first.state is RowState.SUBMITTED:
        return first.job_id == other.job_id
    return first.tag == other.tag


class _RowEvents:
    """Marks the row submitted the moment the runner knows its job, and labels events with the row."""

    def __init__(self, journal: Journal, key: str, index: int, sink: EventSink) -> None:
        self.journal, self.key, self.index, self.sink = journal, key, index, sink

    def emit(self, kind: str, /, **data: Any) -> None:
        if kind in ("submitted", "reconciled"):
            self.journal.mark_submitted(self.key, data["job_id"])
        self.sink.emit(kind, row=self.index, key=self.key, **data)


async def execute_batch(client: ApiClient, journal: Journal, manifest: Manifest, renderer: RowRenderer,
                        options: BatchOptions, *, events: EventSink | None = None,
                        progress: Progress | None = None,
                        on_change: Callable[[], None] | None = None) -> BatchOutcome:
    """Run every unfinished row of ``journal``; see the module docstring."""
    sink: EventSink = events or NullEvents()
    state = _State()
    work = _work(journal, manifest, options.key_column, options.shard)
    counts = journal.counts()
    per_job = options.rows_per_job or auto_rows_per_job(counts.pending + counts.in_flight,
                                                         options.concurrency)
    base_dir = options.base_dir or options.run.base_dir or Path.cwd()
    budget = _UPLOAD_BUDGET if options.rows_per_job else _AUTO_BYTES
    groups = _groups(work, renderer, per_job, base_dir, budget)

    def changed() -> None:
        if on_change is not None:
            on_change()

    async def alone(wanted: JournalRow, row: ManifestRow, rendered: _Rendered | None = None) -> None:
        await _one(client, journal, renderer, options, sink, state, progress, wanted, row, rendered)

    def failed(key: str, code: str, message: str, row: ManifestRow, sent: bool) -> None:
        _failed(journal, key, code, message, sink, row, progress, options, state, sent=sent)

    def trouble(exc: ServiceTrouble, rows: Sequence[tuple[int, str]]) -> None:
        _trouble(exc, rows, options, sink, state, progress)

    def calm() -> None:
        state.trouble_run = 0

    ctx = PackContext(client, journal, options.run, sink, progress, alone, failed, trouble, calm, base_dir)

    async def worker() -> None:
        while not state.stop:
            group = next(groups, None)
            if group is None:
                return
            if isinstance(group, _Alone):
                await alone(group.wanted, group.row, group.rendered)
            elif group.members[0].wanted.state is RowState.PENDING:
                await run_pack(ctx, group.members)
            else:
                await resume_pack(ctx, group.members)
            changed()

    workers = [asyncio.create_task(worker()) for _ in range(max(1, options.concurrency))]
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        for task in workers:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*workers, return_exceptions=True)
        raise BatchInterrupted("interrupted; every row is recorded in the journal "
                               f"{journal.path}; run the same command again to resume") from None
    except BaseException:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    return BatchOutcome(journal.counts(), state.troubled, state.stop, state.last_trouble)


@dataclass
class _State:
    stop: bool = False
    troubled: int = 0
    trouble_run: int = 0
    last_trouble: str | None = None


async def _one(client: ApiClient, journal: Journal, renderer: RowRenderer, options: BatchOptions,
               sink: EventSink, state: _State, progress: Progress | None, wanted: JournalRow,
               row: ManifestRow, rendered: _Rendered | None = None) -> None:
    key = wanted.key
    events = _RowEvents(journal, key, row.index, sink)
    pipeline, found = rendered or renderer.render(row, key, checked=True)
    if pipeline is None:
        first = next((d for d in found if d.severity.value == "error"), None)
        message = f"{row.where}: invalid row" + (f": {first.message}" if first else "")
        if wanted.state is RowState.PENDING:
            _failed(journal, key, "invalid-row", message, sink, row, progress, options, state, sent=False)
            return
        # A row submitted by an earlier run is followed even if it no longer renders.
    if progress is not None:
        progress.start()
    run = options.run
    try:
        job: Job | None = None
        if wanted.state is RowState.SUBMITTING and wanted.tag:
            job = await find_job_by_tag(client, wanted.tag)
            if job is None:
                journal.mark_pending(key)
                sink.emit("row-requeued", row=row.index, key=key, tag=wanted.tag)
            else:
                journal.mark_submitted(key, job.id)
                sink.emit("reconciled", row=row.index, key=key, job_id=job.id, tag=wanted.tag)
        elif wanted.state is RowState.SUBMITTED and wanted.job_id:
            job = await client.get_job(wanted.job_id)
        if job is None:
            if pipeline is None:
                raise McvError("the row no longer renders")
            attempt = attempt_tag(journal.batch_id, key, wanted.attempts + 1)
            journal.mark_submitting(key, job_tag(pipeline, attempt))  # the runner tags the job alike
            outcome = await run_pipeline(client, pipeline, replace(run, run_id=attempt), events)
            ok, job_id = outcome.ok, outcome.job_id
            # Files downloaded, then files an export stored in the caller's storage (s3://bucket/key).
            paths = [str(f.path) for f in outcome.files] + [f.location for f in outcome.stored]
            credits, failures = outcome.credits, outcome.failures
            status = outcome.status
        else:
            ok, job_id, paths, credits, failures, status = await _resume(
                client, job, pipeline, run, events)
    except RunTimeout as exc:
        _failed(journal, key, "timeout", str(exc), sink, row, progress, options, state)
        return
    except ServiceTrouble as exc:
        _trouble(exc, [(row.index, key)], options, sink, state, progress)
        return
    except (InterruptedRun, asyncio.CancelledError):
        raise asyncio.CancelledError from None
    except McvError as exc:
        code = "invalid-row" if pipeline is None else "refused"
        _failed(journal, key, code, str(exc), sink, row, progress, options, state)
        return
    state.trouble_run = 0
    if ok:
        journal.mark_finished(key, paths, credits)
        if progress is not None:
            progress.finish()
        sink.emit("row-finished", row=row.index, key=key, job_id=job_id, outputs=paths, credits=credits)
        return
    failure = failures[0] if failures else None
    code = (failure.code if failure and failure.code else None) or f"job-{status}"
    message = failure.describe() if failure else f"job {job_id} ended {status}"
    _failed(journal, key, code, message, sink, row, progress, options, state)


def _trouble(exc: ServiceTrouble, rows: Sequence[tuple[int, str]], options: BatchOptions, sink: EventSink,
             state: _State, progress: Progress | None) -> None:
    """Service trouble for ``rows`` (index, key; one job's): each stays in its state for the next run
    to resume; ``trouble_limit`` troubled jobs in a row stop new ones from starting."""
    state.troubled += len(rows)
    state.trouble_run += 1
    state.last_trouble = redact(str(exc))
    if state.trouble_run >= options.trouble_limit:
        state.stop = True
    if progress is not None:
        progress.in_flight = max(progress.in_flight - len(rows), 0)
    for index, key in rows:
        sink.emit("row-trouble", row=index, key=key, error=str(exc))


def _failed(journal: Journal, key: str, code: str, message: str, sink: EventSink, row: ManifestRow,
            progress: Progress | None, options: BatchOptions, state: _State, *, sent: bool = True) -> None:
    journal.mark_failed(key, code, message)
    if progress is not None:
        progress.fail(in_flight=sent)
    sink.emit("row-failed", row=row.index, key=key, code=code, error=message)
    if options.fail_fast:
        state.stop = True


async def _resume(client: ApiClient, job: Job, pipeline: RenderedPipeline | None, run: RunOptions,
                  events: EventSink) -> tuple[bool, str, list[str], int | None, tuple[Any, ...], str]:
    """Follow a job an earlier run created: send uploads still waiting, wait, download."""
    clock = client.retry.clock
    if pipeline is not None and not job.ended:
        waiting = {t.name for t in job.tasks if t.status == "waiting" and t.operation == "import/upload"}
        uploads = [u for u in plan_uploads(pipeline, run.base_dir or Path.cwd()) if u.task.name in waiting]
        await upload_all(client, job, uploads, events, concurrency=run.upload_concurrency)
    deadline = None if run.timeout is None else clock() + run.timeout
    mode = "sync" if run.wait in ("auto", "webhook") else run.wait
    job = await follow_job(client, job, run, TaskTracker(events), mode=mode, deadline=deadline)
    failures = failures_of(job, pipeline) if pipeline is not None else ()
    paths: list[str] = []
    if job.status == "finished" and pipeline is not None:
        # Files of this row's job: a partial file from the killed run is replaced.
        files = await download_all(client, job, export_dirs(pipeline, run), events, overwrite=True,
                                   concurrency=run.download_concurrency, max_resumes=run.download_resumes)
        paths = [str(f.path) for f in files]
    paths += [f.location for f in stored_files(job.tasks)]
    credits_ = [t.credits for t in job.tasks if t.credits is not None]
    ok = job.status == "finished" and not failures and pipeline is not None
    events.emit("finished" if ok else "failed", job_id=job.id, status=job.status)
    return ok, job.id, paths, (sum(credits_) if credits_ else None), failures, job.status
