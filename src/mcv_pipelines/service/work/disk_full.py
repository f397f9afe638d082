"""A task that ran out of local disk (issue 25): it fails with ``DISK_FULL`` naming the disk, not with
an internal error and a traceback in the log.

A worker's disk fills while it fetches a task's inputs, while the engine writes its outputs, or while it
stages them for the store. Whichever raised, the error (or one it was raised from) is an OSError with
ENOSPC or EDQUOT; an engine that reported the program's own words says "No space left on device". The
message names the worker's data directory, where its inputs and outputs are staged, so an operator
knows which disk of which worker to look at; the worker then claims no task for a while
(lease_scheduler.py), so the others take the work.
"""

from __future__ import annotations

import errno
from pathlib import Path

from mcv_pipelines.service.state.tasks import TaskFailed

__all__ = ["CODE", "disk_full"]

CODE = "DISK_FULL"
_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_WORDS = ("no space left on device", "disk quota exceeded")


def disk_full(exc: BaseException, data_dir: Path) -> TaskFailed | None:
    """``DISK_FULL`` when ``exc`` (or an error it came from) is a full disk, else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _ERRNOS:
            return _failure(data_dir)
        if isinstance(current, TaskFailed) and any(w in current.message.lower() for w in _WORDS):
            return _failure(data_dir)
        current = current.__cause__ or current.__context__
    return None


def _failure(data_dir: Path) -> TaskFailed:
    return TaskFailed(
        CODE,
        f"The worker's disk is full: no space left in its data directory {data_dir}, where it stages "
        "the task's inputs and outputs. Free space there, or run the task again (another worker may "
        "take it).",
    )
