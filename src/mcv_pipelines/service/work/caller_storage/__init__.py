"""The caller's storage: import/... and export/... of S3 (and the kinds to come), run in the worker.

One module per kind implements contract.CallerStore; KINDS below is the only place that names them,
with the payload fields that give one object or a prefix. transfer.py moves the files, errors.py
holds the codes a user sees. An API process never comes here (routes only store the task), nor does
an engine (no file of a caller's store is ever in an engine's view but its task's inputs).

Example::

    kind = kind_of("import/s3")
    files = run_import(kind, payload, StoreSettings(guard=None), target=writer_for_name)
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, StoreSettings
from mcv_pipelines.service.work.caller_storage.transfer import (
    AT_ONCE,
    Source,
    Target,
    export_files,
    import_files,
)

__all__ = [
    "KINDS",
    "Kind",
    "Source",
    "StoreSettings",
    "Target",
    "kind_of",
    "run_export",
    "run_import",
]

_VENDORS = {"azure": "Azure Blob storage", "gcs": "Google Cloud Storage", "openstack": "OpenStack Swift"}
Opener = Callable[[Mapping[str, Any], StoreSettings, int], CallerStore]


def _opener(module: str, name: str, extra: str = "") -> Opener:
    """Opens a store of the class ``name`` of ``module``, imported on first use: a worker loads the
    vendor's client of a kind (boto3, asyncssh, azure, google, keystoneauth1 + swiftclient) only when
    it runs one, and `mcv` starts without any. The clients of an ``extra`` (pyproject.toml) come only
    with it: where one is missing the task says how to add it."""

    def open_store(payload: Mapping[str, Any], settings: StoreSettings, pool: int) -> CallerStore:
        try:
            found = importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if not extra or (exc.name or "").startswith("mcv_pipelines"):
                raise
            raise TaskFailed(
                errors.CLIENT_MISSING,
                f"This service cannot reach {_VENDORS[extra]}: its client ({exc.name}) is not installed "
                f"where the service runs. Add it there with pip install 'mcv-pipelines[{extra}]' (or "
                "'mcv-pipelines[storage]' for every kind), then start the service again.",
            ) from None
        store: type[Any] = getattr(found, name)
        opened: CallerStore = store(payload, settings, pool)
        return opened

    return open_store


def _in_directory(directory: str, filename: str) -> str:
    return f"{directory.rstrip('/')}/{filename}" if directory else filename


@dataclass(frozen=True)
class Kind:
    """One kind of store: how to open it, and the fields naming one object or a prefix."""

    name: str
    open: Opener
    one: str
    many: str
    join: Callable[[str, str], str] = str.__add__  # a prefix and a file name: the file's key


KINDS: dict[str, Kind] = {
    "s3": Kind("s3", _opener("s3", "S3Store"), "key", "key_prefix"),
    "sftp": Kind("sftp", _opener("sftp", "SftpStore"), "file", "path", _in_directory),
    "google-cloud-storage": Kind(
        "google-cloud-storage", _opener("gcs", "GcsStore", "gcs"), "file", "file_prefix"
    ),
    "azure/blob": Kind("azure/blob", _opener("azure_blob", "AzureBlobStore", "azure"), "blob", "blob_prefix"),
    "openstack": Kind("openstack", _opener("swift", "SwiftStore", "openstack"), "file", "file_prefix"),
}


def kind_of(operation: str) -> Kind | None:
    """The kind of an import/... or export/... operation on a caller's store, None for any other."""
    direction, _, name = operation.partition("/")
    return KINDS.get(name) if direction in ("import", "export") else None


def _field(payload: Mapping[str, Any], name: str) -> str | None:
    value = payload.get(name)
    return str(value) if isinstance(value, str | int) and str(value) != "" else None


def _named(kind: Kind, payload: Mapping[str, Any], direction: str) -> tuple[str | None, str | None]:
    """(one object, prefix) the task names: exactly one of them."""
    prefix = _field(payload, kind.many)
    key = None if prefix is not None else _field(payload, kind.one)
    if prefix is None and key is None:
        raise TaskFailed("INVALID_TASK", f"{direction}/{kind.name} needs {kind.one} or {kind.many}.")
    return key, prefix


def run_import(
    kind: Kind,
    payload: Mapping[str, Any],
    settings: StoreSettings,
    target: Target,
    cancelled: threading.Event | None = None,
) -> dict[str, Any]:
    """Import the task's object(s) into ``target``; the task's result ({files, ...})."""
    store = kind.open(payload, settings, AT_ONCE)
    try:
        key, prefix = _named(kind, payload, "import")
        files = import_files(store, key, prefix, _field(payload, "filename"), target, cancelled)
        return {"files": files, **store.notes()}
    finally:
        store.close()


def run_export(
    kind: Kind,
    payload: Mapping[str, Any],
    settings: StoreSettings,
    sources: Sequence[Source],
    cancelled: threading.Event | None = None,
) -> dict[str, Any]:
    """Store the task's input files; the task's result ({files, ...}), each file with its ``location``."""
    store = kind.open(payload, settings, AT_ONCE)
    try:
        key, prefix = _named(kind, payload, "export")
        return {"files": export_files(store, key, prefix, sources, cancelled, kind.join), **store.notes()}
    finally:
        store.close()
