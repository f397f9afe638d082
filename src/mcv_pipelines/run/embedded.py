"""The embedded default: the local service started in-process for one command, on persistent data.

    with embedded_service() as embedded:          # data dir: MCV_DATA_DIR or the user data dir
        settings = embedded.settings              # base/sync URL on a free loopback port, stable key
        ...                                       # talk to it with ApiClient(settings)

The data directory outlives the command (``mcv jobs show ID`` later sees the same jobs) and is the
one ``mcv serve`` uses by default. Its API key is kept in ``<data_dir>/api-key`` (mode 0600), so every
command opens the same account. Only one process serves a data directory at a time (``DataDirLock``):
a second one gets a ``UsageError`` that says to use ``mcv serve`` and ``MCV_BASE_URL`` for concurrent
use, because the service's startup recovery would otherwise re-run tasks the first process is running.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from mcv_pipelines.api.settings import Settings
from mcv_pipelines.errors import ServiceTrouble, UsageError
from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.state.lock import DataDirBusy, DataDirLock

if TYPE_CHECKING:
    from mcv_pipelines.service.server import LocalService

__all__ = ["EmbeddedService", "default_data_dir", "embedded_service", "stored_api_key"]

KEY_FILE = "api-key"


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``MCV_DATA_DIR``, else ``<user data dir>/mcv-pipelines/service`` (shared with ``mcv serve``)."""
    env = os.environ if env is None else env
    explicit = env.get("MCV_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_data_dir("mcv-pipelines")) / "service"


def stored_api_key(data_dir: Path) -> str:
    """The data directory's own key, created once with mode 0600."""
    path = data_dir / KEY_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text(encoding="utf-8").strip()
        if not key:
            raise UsageError(f"{path} is empty; delete it and a new key is made") from None
    else:
        key = secrets.token_urlsafe(32)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key + "\n")
    register_secret(key)
    return key


def _operator_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """What `mcv serve` reads from an MCV_* variable and the embedded service reads too, so that a
    recipe runs the same on both: where Azure storage accounts are (an emulator, a sovereign cloud)."""
    template = env.get("MCV_AZURE_BLOB_ENDPOINT", "").strip()
    if not template:
        return {}
    from mcv_pipelines.service.work.caller_storage.contract import endpoint_problem

    problem = endpoint_problem(template)
    if problem is not None:
        raise UsageError(f"MCV_AZURE_BLOB_ENDPOINT {template!r}: {problem}")
    return {"azure_blob_endpoint": template}


@dataclass(frozen=True)
class EmbeddedService:
    service: LocalService
    settings: Settings
    data_dir: Path


@contextlib.contextmanager
def embedded_service(
    data_dir: str | Path | None = None,
    *,
    faults: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Iterator[EmbeddedService]:
    """Serve ``data_dir`` (default ``default_data_dir()``) on a free loopback port for the block."""
    directory = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    try:
        lock = DataDirLock(directory).acquire()
    except DataDirBusy as exc:
        raise UsageError(
            f"the local service's data directory {directory} is in use by another mcv command "
            f"({exc.holder}). For several commands at once, run `mcv serve --data-dir {directory}` "
            "and point the others at it with MCV_BASE_URL and MCV_API_KEY; or give this one its own "
            "--data-dir"
        ) from None
    except OSError as exc:
        raise UsageError(
            f"cannot use {directory} as the local data directory: {exc.strerror or exc}"
        ) from exc
    # Imported here: a command that talks to a configured service (`mcv batch` with MCV_BASE_URL)
    # imports this module too, and starlette, uvicorn and the engines cost it a start-up (issue 15).
    from mcv_pipelines.service.server import LocalService

    try:
        key = stored_api_key(directory)
        settings = {**_operator_settings(os.environ), **(settings or {})}
        service = LocalService(data_dir=directory, api_key=key, faults=faults, settings=settings)
        try:
            service.start()
        except (OSError, RuntimeError) as exc:
            raise ServiceTrouble(f"the embedded local service did not start: {exc}") from exc
        try:
            resolved = Settings.build(api_key=key, base_url=service.base_url, sync_url=service.sync_url)
            yield EmbeddedService(service, resolved, directory)
        finally:
            service.stop()
    finally:
        lock.release()
