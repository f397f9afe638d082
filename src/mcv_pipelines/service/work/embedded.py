"""import/base64 and import/raw end as they are created: the file they carry is already here.

    born_ended(config, storage, task)   # the file stored, the new task's document ended in place

A job's creation request brings these files whole, so the task has nothing left to wait or run for:
its file is written into the store and the task is saved already finished (or failed: bad base64,
a file the sandbox does not allow). Its dependants can start in the job's creating write; no worker
picks the import up, no start and end are written for it.

Only where that write is quick and cannot wait on a network (``at_creation``): the local directory
store of a service on its own database, a file of at most ``AT_CREATION_LIMIT`` bytes. Elsewhere, or
when the store cannot take the file now (a full disk), the task is saved waiting and a worker runs it
as any task (``run_import``), with what a worker does then: hand it back while a store is away, fail
it DISK_FULL.
"""

from __future__ import annotations

import hashlib
import logging

from mcv_pipelines.service.files.storage import DirectoryStorage, Storage, StorageError
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Doc
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.imports import embedded_file
from mcv_pipelines.service.work.operations import Outcome, record_end
from mcv_pipelines.service.work.taskfiles import check_stored_sandbox, discard

__all__ = ["AT_CREATION_LIMIT", "EMBEDDED", "at_creation", "born_ended"]

log = logging.getLogger(__name__)
EMBEDDED = frozenset({"import/base64", "import/raw"})
AT_CREATION_LIMIT = 1024 * 1024
"""Bytes of an embedded file written by the creating request itself, at most (on the event loop)."""


def at_creation(storage: Storage, shared_database: bool, task: Doc) -> bool:
    """Whether the new ``task`` is an embedded import to end in its job's creating request."""
    if task["operation"] not in EMBEDDED or shared_database or not isinstance(storage, DirectoryStorage):
        return False
    text = task["payload"].get("file")
    if not isinstance(text, str):
        return False
    size = len(text) * 3 // 4 if task["operation"] == "import/base64" else len(text)
    return size <= AT_CREATION_LIMIT


def born_ended(config: ServiceConfig, storage: Storage, task: Doc) -> None:
    """Store the file of a new embedded import ``task`` and end the task in its document, before the
    task is first saved (its id must be its final one: the file is stored under it). When the store
    cannot take the file, the task is left as it was, for a worker to run."""
    outcome: Outcome | TaskFailed
    try:
        name, data = embedded_file(task["operation"], task["payload"])
        digest = hashlib.md5(data, usedforsecurity=False).hexdigest()
        writer = storage.writer(task["id"], name)
        try:
            writer.write(data)
            writer.commit()
        finally:
            writer.abort()
        check_stored_sandbox(config, storage, task["id"], [name])
        outcome = Outcome({"files": [{"filename": name, "md5": digest, "size": len(data)}]})
    except (OSError, StorageError) as exc:  # StorageError first: it is a TaskFailed too
        log.info("embedded file of task %s left to a worker: the store refused it (%s)", task["id"],
                 type(exc).__name__)
        discard(storage, config, task["id"])
        return
    except TaskFailed as failure:  # the file itself: bad base64, not allowed in the sandbox
        outcome = failure
    if isinstance(outcome, TaskFailed):
        discard(storage, config, task["id"])
    record_end(task, outcome)
