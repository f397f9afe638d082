"""The --timeout of a whole run: where the run was when it passed, and the message that says so.

``run_pipeline`` records its stage (creating the job, uploading, waiting, downloading) in a ``Stage``;
when the deadline cuts it short, ``timed_out`` names the stage, the requests still unanswered and what
to do (issue 14: a silent service held `mcv run --timeout 10` for 181 s).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.run.follow import RunTimeout, resume_hint
from mcv_pipelines.run.model import RunOptions

__all__ = ["Stage", "timed_out"]


@dataclass
class Stage:
    """Where a run is, for the message when --timeout cuts it short."""

    tag: str
    doing: str = "preparing the run"
    job: Job | None = None
    deadline: float | None = None  # the event loop's time at which --timeout passes


def timed_out(client: ApiClient, options: RunOptions, stage: Stage) -> RunTimeout:
    """The error that ends a run whose --timeout passed, with the job to follow when there is one."""
    seconds = options.timeout or 0.0
    waiting = client.in_flight
    pending = f"; no answer yet to {', '.join(waiting)}" if waiting else ""
    more = "give it more time with --timeout, or a shorter --read-timeout to fail each request sooner"
    if stage.job is None:
        message = (
            f"--timeout {seconds:g} s passed while {stage.doing}{pending}. Check that the service at "
            f"{client.base_url} is up and answering (`mcv me` asks it), or {more}. If the job's creation "
            f"got through, it is tagged {stage.tag!r}: `mcv jobs list --tag {stage.tag}`"
        )
        return RunTimeout(None, seconds, message=message)
    out = str(options.out_dir) if options.out_dir else None
    message = (
        f"job {stage.job.id} did not end within {seconds:g} s (--timeout passed while {stage.doing}"
        f"{pending}); it was left running on the service. Follow it later with: "
        f"{resume_hint(stage.job.id, out)}, or {more}"
    )
    return RunTimeout(stage.job.id, seconds, out, message=message)
