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

from mcv_pipelines.local_service.config import ServiceConfig
from mcv_pipelines.local_service.signing import file_url
from mcv_pipelines.local_service.storage.base import Storage, StorageError
from mcv_pipelines.local_service.store import Doc, Store
from mcv_pipelines.local_service.tasks import TaskFailed
from mcv_pipelines.local_service.validate import input_names

if TYPE_CHECKING:
    from mcv_pipelines.local_service.operations import Outcome

__all__ = ["check_stored_sandbox", "discard", "export_in_store", "fetch_input", "publish"]

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
            message = f"The file {name} is not whitelisted for the sandbox (by its MD5)."
            raise TaskFailed("SANDBOX_FILE_NOT_ALLOWED", message)


def export_in_store(storage: Storage, config: ServiceConfig, store: Store, task: Doc) -> Outcome | None:
    """An export/url task on a remote store, done by copies inside the store (no file comes down to
    this machine); None when the task needs the usual way (a directory store, or a zip of its inputs).
    Names and links are those ``operations`` gives: a second input of the same name is prefixed with
    its task's name."""
    from mcv_pipelines.local_service.operations import Outcome

    payload = task["payload"]
    if task["operation"] != "export/url" or payload.get("archive_multiple_files"):
        return None
    if storage.local_path(task["id"], "file") is not None:
        return None
    inline = bool(payload.get("inline"))
    files: list[Doc] = []
    for dep, entry in _finished_inputs(store, task):
        name = entry["filename"]
        if any(f["filename"] == name for f in files):  # same name from two inputs: keep both
            name = f"{dep.get('name') or dep['id']}-{name}"
        try:
            storage.copy(dep["id"], entry["filename"], task["id"], name)
        except FileNotFoundError:
            continue  # as a missing input file is skipped on the usual way
        size = entry.get("size")
        url = file_url(config.signing_key, config.public_url, task["id"], name, config.link_ttl, inline)
        if size is None:
            size = storage.size(task["id"], name)
        files.append({"filename": name, "size": size, "url": url})
    return Outcome({"files": files})


def _finished_inputs(store: Store, task: Doc) -> list[tuple[Doc, Doc]]:
    """(input task, result file) of each file of the task's finished inputs, in input order."""
    payload, deps = task["payload"], task.get("depends_on", {})
    found: list[tuple[Doc, Doc]] = []
    for ref in [*input_names(payload.get("input")), *input_names(payload.get("image"))]:
        dep = store.get_task(deps.get(ref, ref))
        if dep is not None and dep["status"] == "finished":
            found.extend((dep, entry) for entry in (dep.get("result") or {}).get("files", []))
    return found
