"""Tasks a remote store can run without any file coming down to the worker: import/url and imports
from a caller's storage stream straight into the store, export/url copies its inputs inside the
store, exports to a caller's storage stream from it.

``run_in_store`` returns None for every other task, and for every task on a directory store (where
the usual way already works on the stored files in place).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from mcv_pipelines.service.files.signing import file_url
from mcv_pipelines.service.files.storage.base import Storage
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Doc, Store
from mcv_pipelines.service.state.tasks import input_names
from mcv_pipelines.service.work.caller_storage import Kind, kind_of
from mcv_pipelines.service.work.caller_storage.tasks import export_from_store, import_into_store
from mcv_pipelines.service.work.imports import download_url
from mcv_pipelines.service.work.operations import Outcome
from mcv_pipelines.service.work.taskfiles import sandbox_refusal

__all__ = ["run_in_store"]


def run_in_store(storage: Storage, config: ServiceConfig, store: Store, task: Doc) -> Outcome | None:
    if storage.local_path(task["id"], "file") is not None:
        return None
    kind = kind_of(task["operation"])
    if kind is not None:
        return _caller_storage(storage, config, store, task, kind)
    if task["operation"] == "import/url":
        return _import_url(storage, config, task)
    if task["operation"] == "export/url" and not task["payload"].get("archive_multiple_files"):
        return _export_url(storage, config, store, task)
    return None  # archives are made from local copies of their inputs


def _import_url(storage: Storage, config: ServiceConfig, task: Doc) -> Outcome:
    """The download streamed into the store (one part in memory), its MD5 taken on the way."""
    entry: Doc = {}

    def into_store(name: str, chunks: Iterator[bytes]) -> None:
        digest = hashlib.md5(usedforsecurity=False)
        writer = storage.writer(task["id"], name)
        try:
            for chunk in chunks:
                digest.update(chunk)
                writer.write(chunk)
            writer.commit()
        finally:
            writer.abort()
        entry.update(filename=name, md5=digest.hexdigest(), size=writer.size)

    download_url(task["payload"], config.url_guard, into_store)
    if config.sandbox and entry["md5"] not in config.sandbox_whitelist:
        raise sandbox_refusal(entry["filename"])
    return Outcome({"files": [entry]})


def _caller_storage(storage: Storage, config: ServiceConfig, store: Store, task: Doc, kind: Kind) -> Outcome:
    """The caller's objects streamed into the store, or the stored inputs streamed out to the caller."""
    if task["operation"].startswith("import/"):
        result = import_into_store(kind, task["payload"], config, storage, task["id"])
        for entry in result["files"]:
            if config.sandbox and entry["md5"] not in config.sandbox_whitelist:
                raise sandbox_refusal(entry["filename"])
        return Outcome(result)
    inputs = [
        (dep["id"], str(dep.get("name") or dep["id"]), str(entry["filename"]))
        for dep, entry in _finished_inputs(store, task)
    ]
    return Outcome(export_from_store(kind, task["payload"], config, storage, inputs))


def _export_url(storage: Storage, config: ServiceConfig, store: Store, task: Doc) -> Outcome:
    """Copies inside the store. Names and links are those ``operations`` gives: a second input of the
    same name is prefixed with its task's name."""
    inline = bool(task["payload"].get("inline"))
    files: list[Doc] = []
    for dep, entry in _finished_inputs(store, task):
        name = entry["filename"]
        if any(f["filename"] == name for f in files):  # same name from two inputs: keep both
            name = f"{dep.get('name') or dep['id']}-{name}"
        size = entry.get("size")
        known = size if isinstance(size, int) else None
        try:
            storage.copy(dep["id"], entry["filename"], task["id"], name, known)
        except FileNotFoundError:
            continue  # as a missing input file is skipped on the usual way
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
