"""Bring every export/url file home: into the export task's ``download_to`` (or ``--out``).

Names come from the service and are sanitised (``safe_filename``). An existing file is never replaced
unless the run allows it; where the name is known before submitting (an input task sets ``filename``),
the refusal comes before any request, so no credits are spent on a run that could not finish.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.api.transfer import safe_filename
from mcv_pipelines.errors import UsageError
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.run.concurrency import all_or_first_error
from mcv_pipelines.run.events import EventSink
from mcv_pipelines.run.model import DownloadedFile, RunOptions
from mcv_pipelines.run.uploads import throttled

__all__ = ["OverwriteRefused", "check_known_targets", "download_all", "export_dirs"]


class OverwriteRefused(UsageError):
    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"{path} already exists; pass --overwrite to replace it, or --out DIR")


@dataclass(frozen=True, slots=True)
class _Target:
    task: str
    url: str
    path: Path
    size: int | None


def export_dirs(pipeline: RenderedPipeline, options: RunOptions) -> dict[str, Path]:
    """Where each export/url task's files go."""
    base = options.base_dir or Path.cwd()
    dirs: dict[str, Path] = {}
    for task in pipeline.tasks.values():
        if task.operation != "export/url":
            continue
        if options.out_dir is not None:
            dirs[task.name] = options.out_dir if options.out_dir.is_absolute() else base / options.out_dir
        elif task.download_to:
            where = Path(task.download_to).expanduser()
            dirs[task.name] = where if where.is_absolute() else base / where
        else:
            dirs[task.name] = base
    return dirs


def check_known_targets(pipeline: RenderedPipeline, options: RunOptions) -> list[Path]:
    """Paths known before submitting (inputs with ``filename``); refuses one that exists."""
    known: list[Path] = []
    for name, directory in export_dirs(pipeline, options).items():
        for source in pipeline.tasks[name].input_names:
            task = pipeline.tasks.get(source)
            filename = task.body.get("filename") if task is not None else None
            if isinstance(filename, str) and filename:
                path = directory / safe_filename(filename)
                if path.exists() and not options.overwrite:
                    raise OverwriteRefused(path)
                known.append(path)
    return known


def _targets(job: Job, dirs: dict[str, Path], overwrite: bool) -> list[_Target]:
    targets: list[_Target] = []
    seen: set[Path] = set()
    for task in job.tasks:
        if task.operation != "export/url" or task.status != "finished":
            continue
        directory = dirs.get(task.name or "", next(iter(dirs.values()), Path.cwd()))
        for file in task.files:
            if not file.url:
                continue
            path = directory / safe_filename(file.filename)
            if path in seen:
                raise UsageError(
                    f"two result files would both be written to {path}; give them distinct "
                    "names with `filename` on the tasks that make them"
                )
            if path.exists() and not overwrite:
                raise OverwriteRefused(path)
            seen.add(path)
            targets.append(_Target(task.name or task.id, file.url, path, file.size))
    return targets


async def download_all(
    client: ApiClient,
    job: Job,
    dirs: dict[str, Path],
    events: EventSink,
    *,
    overwrite: bool = False,
    concurrency: int = 4,
    max_resumes: int = 5,
) -> list[DownloadedFile]:
    """Download every file of the job's finished export/url tasks; the files in job order."""
    gate = asyncio.Semaphore(max(1, concurrency))
    targets = _targets(job, dirs, overwrite)

    async def one(target: _Target) -> DownloadedFile:
        async with gate:
            label = str(target.path)
            events.emit("download", task=target.task, file=label, done=0, total=target.size)
            progress = throttled(
                lambda done, total: events.emit(
                    "download", task=target.task, file=label, done=done, total=total
                )
            )
            path = await client.download(target.url, target.path, max_resumes=max_resumes, progress=progress)
        size = path.stat().st_size
        events.emit("downloaded", task=target.task, file=str(path), size=size)
        return DownloadedFile(target.task, path, size)

    return await all_or_first_error(one(t) for t in targets)
