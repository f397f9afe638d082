"""A task that ran out of disk fails with DISK_FULL naming the worker's data directory, whichever
step filled it: an OSError raised as it is, one wrapped by an engine, or a program's own words."""

from __future__ import annotations

import errno
from pathlib import Path

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.disk_full import disk_full

DATA = Path("/srv/mcv/worker-2")


def _wrapped() -> BaseException:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:
            raise RuntimeError("could not save the output") from exc
    except RuntimeError as outer:
        return outer


def test_a_full_disk_is_named_whatever_raised_it() -> None:
    for raised in (
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        _wrapped(),
        TaskFailed("CONVERSION_FAILED", "ffmpeg: out.mp4: No space left on device"),
    ):
        failure = disk_full(raised, DATA)
        assert failure is not None, raised
        assert failure.code == "DISK_FULL"
        assert "/srv/mcv/worker-2" in failure.message
        assert "disk is full" in failure.message


def test_other_errors_are_not_a_full_disk() -> None:
    assert disk_full(OSError(errno.EACCES, "Permission denied"), DATA) is None
    assert disk_full(TaskFailed("CONVERSION_FAILED", "bad input"), DATA) is None
    assert disk_full(ValueError("no"), DATA) is None
