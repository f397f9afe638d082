"""Send every ``upload_from`` file to its import/upload task's form: streamed, several at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.errors import ServiceTrouble, UsageError
from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask
from mcv_pipelines.run.concurrency import all_or_first_error
from mcv_pipelines.run.events import EventSink

__all__ = ["PlannedUpload", "plan_uploads", "throttled", "upload_all"]


@dataclass(frozen=True, slots=True)
class PlannedUpload:
    task: RenderedTask
    path: Path
    size: int


def plan_uploads(pipeline: RenderedPipeline, base_dir: Path) -> list[PlannedUpload]:
    """The files to upload, checked before any request: each must exist and be a readable file."""
    planned: list[PlannedUpload] = []
    problems: list[str] = []
    for task in pipeline.tasks.values():
        if task.upload_from is None:
            if task.operation == "import/upload":
                problems.append(
                    f"{task.location}: task {task.name} is an import/upload without upload_from: "
                    "nothing would send its file, and the job would wait for it"
                )
            continue
        path = Path(task.upload_from).expanduser()
        path = path if path.is_absolute() else base_dir / path
        where = f"{task.location}: task {task.name}: upload_from"
        if task.operation != "import/upload":
            problems.append(f"{where} needs operation import/upload, not {task.operation}")
        elif not path.is_file():
            problems.append(f"{where}: {task.upload_from} is not a file")
        else:
            try:
                with path.open("rb"):
                    pass
            except OSError as exc:
                problems.append(f"{where}: cannot read {task.upload_from}: {exc.strerror or exc}")
                continue
            planned.append(PlannedUpload(task, path, path.stat().st_size))
    if problems:
        raise UsageError("; ".join(problems))
    return planned


def throttled(
    emit: Callable[[int, int | None], None], every: float = 0.1
) -> Callable[[int, int | None], None]:
    """Pass on byte counts at most every ``every`` seconds, and always the last one."""
    last = 0.0

    def report(done: int, total: int | None) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= every or (total is not None and done >= total):
            last = now
            emit(done, total)

    return report


async def upload_all(
    client: ApiClient, job: Job, uploads: list[PlannedUpload], events: EventSink, *, concurrency: int = 4
) -> int:
    """Upload each planned file to the form of the job's task of the same name; total bytes sent."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(item: PlannedUpload) -> int:
        name = item.task.name
        task = job.task(name)
        if task is None or task.result is None or task.result.form is None:
            raise ServiceTrouble(f"the service gave task {name} of job {job.id} no upload form")
        async with gate:
            events.emit("upload", task=name, done=0, total=item.size)
            progress = throttled(lambda done, total: events.emit("upload", task=name, done=done, total=total))
            # The task, not only its form: an upload cut midway is sent again while the task waits.
            await client.upload_file(task, item.path, progress=progress)
        events.emit("uploaded", task=name, file=str(item.path), size=item.size)
        return item.size

    results = await all_or_first_error(one(item) for item in uploads)
    return sum(results)
