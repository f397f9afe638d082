"""How a task's files move between the store and the machine that runs it.

Engines work on local files: inputs are fetched into the task's work directory (or read in place from
a directory store), outputs are written into the task's local directory and then put into the store.
When the store is the data directory itself, both steps are no-ops.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcv_pipelines.service.files.storage.base import Storage, StorageError
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.tasks import TaskFailed

if TYPE_CHECKING:
    from mcv_pipelines.service.work.operations import Outcome

__all__ = ["check_stored_sandbox", "discard", "fetch_input", "publish", "sandbox_refusal"]

log = logging.getLogger(__name__)


def fetch_input(
    storage: Storage, config: ServiceConfig, task_id: str, dep_id: str, filename: str
) -> Path | None:
    """A local path of ``dep_id``'s file for task ``task_id``'s engine (None: it is not stored)."""
    return storage.fetch(dep_id, filename, config.work_dir(task_id) / ".inputs" / dep_id)


def publish(storage: Storage, config: ServiceConfig, task_id: str, outcome: Outcome) -> Outcome:
    """Put the files a task wrote into its local directory into the store; returns ``outcome``."""
    local = config.task_dir(task_id)
    if storage.local_path(task_id, "file") == local / "file":  # the store is the data directory
        return outcome
    for path in outcome.files:
        storage.put_file(task_id, path.name, path)
    shutil.rmtree(local, ignore_errors=True)  # it was a staging area only
    return outcome


def discard(storage: Storage, config: ServiceConfig, task_id: str) -> None:
    """Remove a task's files: from the store and from the local directory it may have staged in."""
    shutil.rmtree(config.task_dir(task_id), ignore_errors=True)
    try:
        storage.delete_task(task_id)
    except StorageError as exc:  # the task is gone either way; its files wait for an operator
        log.warning("could not delete the files of task %s: %s", task_id, exc.message)


def check_stored_sandbox(
    config: ServiceConfig, storage: Storage, task_id: str, filenames: Sequence[str]
) -> None:
    """In sandbox mode only whitelisted files (by MD5, read from the store) are accepted."""
    if not config.sandbox:
        return
    for name in filenames:
        digest = hashlib.md5(usedforsecurity=False)
        for chunk in storage.read(task_id, name):
            digest.update(chunk)
        if digest.hexdigest() not in config.sandbox_whitelist:
            raise sandbox_refusal(name)


def sandbox_refusal(name: str) -> TaskFailed:
    return TaskFailed(
        "SANDBOX_FILE_NOT_ALLOWED", f"The file {name} is not whitelisted for the sandbox (by its MD5)."
    )
