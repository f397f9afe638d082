"""What a run is asked to do (``RunOptions``) and what came of it (``RunOutcome``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcv_pipelines.api.models import Task
from mcv_pipelines.diagnostics import Location

__all__ = [
    "DownloadedFile",
    "RunOptions",
    "RunOutcome",
    "StoredFile",
    "TaskFailure",
    "TaskState",
    "WaitMode",
    "stored_files",
]

WaitMode = Literal["auto", "sync", "poll", "webhook"]


@dataclass(frozen=True)
class RunOptions:
    """How one run behaves. Every field has a default a user would expect.

    ``out_dir`` replaces every task's ``download_to`` when given; relative ``download_to`` paths resolve
    against ``base_dir`` (the current directory by default), like any path typed in a shell.
    ``run_id`` makes the job tag unique and findable (``<tag>~<run_id>``); give a stable one to resume
    (a batch journal stores it before submitting), or leave None for a fresh one.
    """

    wait: WaitMode = "auto"
    timeout: float | None = None  # seconds from submission to the job's end; None waits forever
    out_dir: Path | None = None
    base_dir: Path | None = None
    overwrite: bool = False
    keep_going: bool = False  # ignore_error on the job; download what finished even if a task failed
    cancel_on_interrupt: bool = False
    run_id: str | None = None
    listen: tuple[str, int] = ("127.0.0.1", 0)  # the webhook receiver's address
    public_url: str | None = None  # the job's webhook_url when the receiver sits behind a tunnel
    webhook_secret: str | None = None  # verifies webhook signatures (the account's signing secret)
    declare_webhook_secret: bool = False  # send it as webhook_signing_secret (the local service's way)
    webhook_grace: float = 30.0  # seconds without a webhook before polling takes over
    poll_interval: float = 1.0  # first pause between polls; grows with backoff
    max_poll_interval: float = 15.0
    status_interval: float = 2.0  # live-status polling beside a sync wait (0: none)
    upload_concurrency: int = 4
    download_concurrency: int = 4
    download_resumes: int = 5


@dataclass(frozen=True, slots=True)
class TaskFailure:
    """A task that ended in error, mapped back to where it is written."""

    name: str
    code: str | None
    message: str | None
    location: Location | None

    def describe(self) -> str:
        where = f"{self.location}: " if self.location else ""
        code = f" {self.code}" if self.code else ""
        return f"{where}task {self.name} failed{code}: {self.message or 'no message'}"


@dataclass(frozen=True, slots=True)
class TaskState:
    """The last known state of one task of the job."""

    name: str
    operation: str
    status: str
    percent: int | None = None
    message: str | None = None
    credits: int | None = None


@dataclass(frozen=True, slots=True)
class DownloadedFile:
    task: str
    path: Path
    size: int


@dataclass(frozen=True)
class StoredFile:
    """A file an export task stored in the caller's storage (``location``: ``s3://bucket/key``)."""

    task: str
    location: str
    size: int | None


def stored_files(tasks: Iterable[Task]) -> tuple[StoredFile, ...]:
    """Where the finished exports to a caller's storage (export/s3, ...) put their files."""
    found: list[StoredFile] = []
    for task in tasks:
        if not task.operation.startswith("export/") or task.status != "finished":
            continue
        for file in task.files:
            location = file.raw.get("location")
            if isinstance(location, str) and location:
                found.append(StoredFile(task.name or task.id, location, file.size))
    return tuple(found)


@dataclass(frozen=True)
class RunOutcome:
    """The end of a run. ``status`` is the job's: finished, error or cancelled."""

    job_id: str
    tag: str
    status: str
    tasks: tuple[TaskState, ...] = ()
    failures: tuple[TaskFailure, ...] = ()
    files: tuple[DownloadedFile, ...] = ()
    stored: tuple[StoredFile, ...] = ()
    credits: int | None = None
    elapsed: float = 0.0
    uploaded_bytes: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.status == "finished" and not self.failures

    @property
    def downloaded_bytes(self) -> int:
        return sum(f.size for f in self.files)
