"""Running a pipeline: submit the graph as one job, upload, follow, download, report.

The entry point other code calls (``mcv run``, ``mcv batch`` per row)::

    async def run_pipeline(
        client: ApiClient, pipeline: RenderedPipeline, options: RunOptions, events: EventSink
    ) -> RunOutcome

``pipeline`` must already be checked (``check_pipeline(..., use_examples=False)``); nothing here
validates it again. The run: upload files are checked to exist and download targets known in advance
not to exist (unless ``options.overwrite``) before any request; then one POST /v2/jobs tagged
``job_tag(pipeline, run_id)`` = ``<tag>~<run_id>`` (``options.run_id`` or a fresh one); uploads;
following (``options.wait``: auto = sync); downloads of the finished export/url files. It returns a
``RunOutcome`` (job_id, tag, status, tasks, failures with file:line:col, files with sizes, credits,
elapsed, uploaded_bytes) -- a failed job is an outcome with ``status == "error"``, not an exception.
It raises ``UsageError`` (before any request), ``ServiceTrouble`` (``RunTimeout`` has ``job_id``)
and ``RunInterrupted`` (``job_id``, ``tag``) when cancelled.

Lost answers: ``submit_job`` never creates two jobs for one run; ``find_job_by_tag(client, tag)``
is the lookup (a batch that restarts with a journalled run_id calls it before submitting again).

The embedded service: ``with embedded_service(data_dir) as e: ApiClient(e.settings)`` serves the
persistent data directory (``default_data_dir()``) on a free loopback port for the block, one process
per data directory.

Events (``EventSink.emit(kind, **data)``): see ``mcv_pipelines.run.events``.
"""

from mcv_pipelines.run.embedded import EmbeddedService, default_data_dir, embedded_service
from mcv_pipelines.run.events import EventSink, JsonLinesEvents, NullEvents, Tee
from mcv_pipelines.run.follow import RunTimeout, resume_hint
from mcv_pipelines.run.model import DownloadedFile, RunOptions, RunOutcome, TaskFailure, TaskState
from mcv_pipelines.run.runner import RunInterrupted, failures_of, run_pipeline
from mcv_pipelines.run.submit import find_job_by_tag, job_tag, new_run_id, submit_job

__all__ = [
    "DownloadedFile",
    "EmbeddedService",
    "EventSink",
    "JsonLinesEvents",
    "NullEvents",
    "RunInterrupted",
    "RunOptions",
    "RunOutcome",
    "RunTimeout",
    "TaskFailure",
    "TaskState",
    "Tee",
    "default_data_dir",
    "embedded_service",
    "failures_of",
    "find_job_by_tag",
    "job_tag",
    "new_run_id",
    "resume_hint",
    "run_pipeline",
    "submit_job",
]
