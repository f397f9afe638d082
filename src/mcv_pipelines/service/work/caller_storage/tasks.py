"""An import or export task on a caller's store, with the task's files where the worker keeps them:
in the task's local directory (the usual way), or straight in the service's own remote store
(instore.py), so a large object never lands on the worker's disk on the way."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import InputFile
from mcv_pipelines.service.files.storage.base import CHUNK, Storage
from mcv_pipelines.service.files.storage.directory import FileWriter
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.work.caller_storage import Kind, Source, StoreSettings, run_export, run_import

__all__ = ["export_from_paths", "export_from_store", "import_into_dir", "import_into_store"]


def _settings(config: ServiceConfig) -> StoreSettings:
    return StoreSettings(
        guard=config.url_guard,
        retry_for=config.caller_storage_retry,
        known_hosts=config.sftp_known_hosts,
        gcs_endpoint=config.gcs_endpoint,
        gcs_token_uri=config.gcs_token_uri,
        azure_blob_endpoint=config.azure_blob_endpoint,
    )


def import_into_dir(
    kind: Kind, payload: Mapping[str, Any], config: ServiceConfig, out_dir: Path, cancelled: threading.Event
) -> dict[str, Any]:
    """The task's objects as files of ``out_dir``; the task's result."""
    return run_import(kind, payload, _settings(config), lambda name: FileWriter(out_dir / name), cancelled)


def import_into_store(
    kind: Kind, payload: Mapping[str, Any], config: ServiceConfig, storage: Storage, task_id: str
) -> dict[str, Any]:
    return run_import(kind, payload, _settings(config), partial(storage.writer, task_id))


def _file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            yield chunk


def _names(files: Sequence[tuple[str, str]]) -> list[str]:
    """Each input file's name; a second file of the same name is prefixed with its task's name (as
    export/url does)."""
    names: list[str] = []
    for task_name, filename in files:
        names.append(f"{task_name}-{filename}" if filename in names else filename)
    return names


def export_from_paths(
    kind: Kind,
    payload: Mapping[str, Any],
    config: ServiceConfig,
    inputs: Sequence[InputFile],
    cancelled: threading.Event,
) -> dict[str, Any]:
    names = _names([(item.task_name, item.path.name) for item in inputs])
    sources = [
        Source(name, partial(_file_chunks, item.path), item.path.stat().st_size)
        for name, item in zip(names, inputs, strict=True)
    ]
    return run_export(kind, payload, _settings(config), sources, cancelled)


def export_from_store(
    kind: Kind,
    payload: Mapping[str, Any],
    config: ServiceConfig,
    storage: Storage,
    inputs: Sequence[tuple[str, str, str]],
) -> dict[str, Any]:
    """``inputs``: (input task id, its name, file name) of each file, read from the service's store."""
    names = _names([(task_name, filename) for _, task_name, filename in inputs])
    sources = [
        Source(name, partial(storage.read, task_id, filename), storage.size(task_id, filename))
        for name, (task_id, _, filename) in zip(names, inputs, strict=True)
    ]
    return run_export(kind, payload, _settings(config), sources)
