"""Several manifest rows in one job: each row's tasks under a prefix of its own, small files inline.

    pack = build_pack([(row.index, pipeline), ...], base_dir, inline_budget=INLINE_BUDGET)
    pack.tasks          # the POST /v2/jobs ``tasks``: ``r12-source``, ``r12-convert``, ``r13-source`` ...
    pack.uploads        # files too large to travel inline, to send to their (prefixed) upload tasks
    row_view(job, 12)   # the job as row 12 alone sees it: its tasks, their names without the prefix

A row's task names take the prefix ``r<row index>-`` (task names allow letters, digits, ``-`` and
``_``; the ``-`` after the digits keeps ``r1-`` from matching ``r12-``), and every reference to a task
(``input``, watermark's ``image``) is renamed alike: no task of one row can name another row's.

An ``import/upload`` whose file is at most ``INLINE_LIMIT`` bytes becomes an ``import/base64`` task
carrying the file, while the job's inline files stay under ``INLINE_BUDGET``: the creation request
brings it, with no form to ask for and no upload request. The spec allows embedded files up to 10 MB;
the limits here are far below it so that a job's creation stays a small request.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcv_pipelines.api.models import Job, Task
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.run.uploads import PlannedUpload, plan_uploads

__all__ = [
    "AUTO_ROWS_PER_JOB",
    "INLINE_BUDGET",
    "INLINE_LIMIT",
    "MAX_PACK_TASKS",
    "MAX_ROWS_PER_JOB",
    "Pack",
    "build_pack",
    "is_pack_tag",
    "job_keys",
    "pack_tag",
    "row_prefix",
    "row_view",
]

INLINE_LIMIT = 256 * 1024
"""A file of at most this many bytes travels inside the job's creation (import/base64)."""
INLINE_BUDGET = 4 * 1024 * 1024
"""Bytes of files carried inline by one job at most (4/3 of it as base64 text)."""
MAX_PACK_TASKS = 200
"""Tasks of one packed job at most, whatever the rows-per-job."""
MAX_ROWS_PER_JOB = MAX_PACK_TASKS
"""The largest ``--rows-per-job`` (a row has at least one task)."""
AUTO_ROWS_PER_JOB = 50
"""The most rows a job carries when the number is chosen automatically."""
_PACK_SUFFIX = re.compile(r"-(\d+)rows$")
_REFERENCES = ("input", "image")  # keys whose values name tasks of the job


def row_prefix(index: int) -> str:
    """``r<index>-``: the prefix of row ``index``'s task names inside a packed job."""
    return f"r{index}-"


def pack_tag(attempt: str, rows: int) -> str:
    """The attempt tag of a packed job: the first row's attempt tag marked with the number of rows, so
    a resumed batch knows that the job's task names carry row prefixes."""
    return f"{attempt}-{rows}rows"


def is_pack_tag(tag: str | None) -> bool:
    """True for a job tag made by ``pack_tag`` (the rows of such a job are found by their prefixes)."""
    return tag is not None and _PACK_SUFFIX.search(tag) is not None


@dataclass
class Pack:
    """The body of one packed job."""

    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    uploads: list[PlannedUpload] = field(default_factory=list)
    inline_bytes: int = 0
    upload_bytes: int = 0


def _renamed(value: Any, prefix: str) -> Any:
    if isinstance(value, str):
        return prefix + value
    if isinstance(value, list):
        return [prefix + v if isinstance(v, str) else v for v in value]
    return value


def _inline(upload: PlannedUpload) -> dict[str, Any] | None:
    """The import/base64 task body carrying ``upload``'s file, or None when it cannot travel inline
    (a name without an extension, which import/base64 requires)."""
    filename = upload.task.body.get("filename")
    name = filename if isinstance(filename, str) and filename else upload.path.name
    if not Path(name).suffix:
        return None
    data = base64.b64encode(upload.path.read_bytes()).decode("ascii")
    return {"operation": "import/base64", "file": data, "filename": name}


def build_pack(rows: Sequence[tuple[int, RenderedPipeline]], base_dir: Path, *,
               inline_limit: int = INLINE_LIMIT, inline_budget: int = INLINE_BUDGET) -> Pack:
    """One job's tasks for ``rows`` (row index, its rendered pipeline): see the module docstring.
    Upload files are checked as a run checks them (``plan_uploads``: a missing one raises UsageError)."""
    pack = Pack()
    for index, pipeline in rows:
        prefix = row_prefix(index)
        uploads = {u.task.name: u for u in plan_uploads(pipeline, base_dir)}
        for name, task in pipeline.tasks.items():
            body = dict(task.body)
            for key in _REFERENCES:
                if key in body and (key == "input" or task.operation == "watermark"):
                    body[key] = _renamed(body[key], prefix)
            upload = uploads.get(name)
            if upload is not None:
                fits = upload.size <= inline_limit and pack.inline_bytes + upload.size <= inline_budget
                inline = _inline(upload) if fits else None
                if inline is not None:
                    pack.inline_bytes += upload.size
                    body = inline
                else:
                    renamed = replace(upload.task, name=prefix + name, body=body)
                    pack.uploads.append(replace(upload, task=renamed))
                    pack.upload_bytes += upload.size
            pack.tasks[prefix + name] = body
    return pack


def row_view(job: Job, index: int) -> Job:
    """``job`` as row ``index`` sees it: only its tasks, named as in the pipeline; the status is the
    row's own (error when one of its tasks failed, processing while one is under way)."""
    prefix = row_prefix(index)
    tasks = tuple(_unprefixed(t, prefix) for t in job.tasks if (t.name or "").startswith(prefix))
    return replace(job, tasks=tasks, status=_row_status(tasks, job.status))


def _unprefixed(task: Task, prefix: str) -> Task:
    return replace(task, name=(task.name or "").removeprefix(prefix))


def _row_status(tasks: Sequence[Task], job_status: str) -> str:
    if any(t.status == "error" for t in tasks):
        return "error"
    if tasks and all(t.status == "finished" for t in tasks):
        return "finished"
    if job_status in ("finished", "error", "cancelled"):
        return "cancelled"  # the job ended before this row's tasks did: none of them failed
    return "processing"


def job_keys(pipeline: RenderedPipeline) -> dict[str, Any]:
    """The job-level keys of a row's job other than its tag (a webhook_url, say): only rows whose keys
    are equal share a job."""
    return {k: v for k, v in pipeline.job.items() if k != "tag"}
