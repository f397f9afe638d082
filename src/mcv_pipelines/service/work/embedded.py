"""import/base64 and import/raw end as they are created: the file they carry is already here.

    born_ended(config, storage, task)   # the file stored, the new task's document ended in place

A job's creation request brings these files whole, so the task has nothing left to wait or run for:
its file is written into the store and the task is saved already finished (or failed: bad base64,
a file the sandbox does not allow, a full disk). Its dependants can start in the job's creating
write; no worker picks the import up, no start and end are written for it. ``run_import`` still
runs such a task when it comes another way (a retry).
"""

from __future__ import annotations

import hashlib

from mcv_pipelines.service.files.storage import Storage, StorageError
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Doc
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.disk_full import disk_full
from mcv_pipelines.service.work.imports import embedded_file
from mcv_pipelines.service.work.operations import Outcome, record_end
from mcv_pipelines.service.work.taskfiles import check_stored_sandbox, discard

__all__ = ["EMBEDDED", "born_ended"]

EMBEDDED = frozenset({"import/base64", "import/raw"})


def born_ended(config: ServiceConfig, storage: Storage, task: Doc) -> None:
    """Store the file of a new embedded import ``task`` and end the task in its document, before the
    task is first saved. The task's id must be its final one (the file is stored under it)."""
    outcome: Outcome | TaskFailed
    try:
        name, data = embedded_file(task["operation"], task["payload"])
        writer = storage.writer(task["id"], name)
        try:
            writer.write(data)
            writer.commit()
        finally:
            writer.abort()
        digest = hashlib.md5(data, usedforsecurity=False).hexdigest()
        entry = {"filename": name, "md5": digest, "size": len(data)}
        check_stored_sandbox(config, storage, task["id"], [name])
        outcome = Outcome({"files": [entry]})
    except TaskFailed as failure:
        outcome = failure
    except (OSError, StorageError) as exc:
        outcome = disk_full(exc, config.data_dir) or TaskFailed(
            "INTERNAL_ERROR", f"The file could not be stored ({type(exc).__name__})."
        )
    if isinstance(outcome, TaskFailed):
        discard(storage, config, task["id"])
    record_end(task, outcome)
