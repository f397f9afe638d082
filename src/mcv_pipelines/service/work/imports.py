"""Running import tasks: url, base64, raw (the caller's storage: caller_storage/)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import re
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost, UrlGuard
from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.url_fetch import BadRedirect, Redirected, open_url

__all__ = ["Sink", "download_url", "embedded_file", "file_entry", "run_import"]

log = logging.getLogger(__name__)
_CHUNK = 1024 * 1024
Sink = Callable[[str, Iterator[bytes]], None]  # (file name, its bytes): writes one downloaded file


def file_entry(path: Path) -> dict[str, Any]:
    """A result.files entry of an import: {filename, md5, size}."""
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return {"filename": path.name, "md5": digest.hexdigest(), "size": path.stat().st_size}


def run_import(
    operation: str, payload: dict[str, Any], out_dir: Path, guard: UrlGuard | None = None
) -> list[Path]:
    """Bring the task's file(s) into ``out_dir``; returns their paths. ``guard`` checks the
    addresses import/url fetches from (None: any address, the embedded default)."""
    if operation == "import/url":
        return [_download(payload, out_dir, guard)]
    if operation in ("import/base64", "import/raw"):
        name, data = embedded_file(operation, payload)
        (out_dir / name).write_bytes(data)
        return [out_dir / name]
    raise TaskFailed("INVALID_TASK", f"{operation} is not an import this module runs.")


def embedded_file(operation: str, payload: dict[str, Any]) -> tuple[str, bytes]:
    """The (safe) name and the bytes of the file an import/base64 or import/raw task carries."""
    name = safe_filename(str(payload["filename"]))
    if operation != "import/base64":
        return name, str(payload["file"]).encode()
    try:
        return name, base64.b64decode(str(payload["file"]), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise TaskFailed("INVALID_BASE64", f"The file is not valid base64: {exc}") from exc


def _download(payload: dict[str, Any], out_dir: Path, guard: UrlGuard | None) -> Path:
    def to_disk(name: str, chunks: Iterator[bytes]) -> None:
        with (out_dir / name).open("wb") as handle:
            for chunk in chunks:
                handle.write(chunk)

    return out_dir / download_url(payload, guard, to_disk)


def download_url(payload: dict[str, Any], guard: UrlGuard | None, sink: Sink) -> str:
    """Stream import/url's file into ``sink``; returns the (safe) file name it was given."""
    url = str(payload["url"])
    headers = {str(k): str(v) for k, v in (payload.get("headers") or {}).items()}
    try:
        with open_url(url, headers, guard) as response:
            if response.status_code >= 400:
                raise TaskFailed(
                    "IMPORT_FAILED", f"Downloading {_shown(url)} answered HTTP {response.status_code}."
                )
            name = safe_filename(str(payload.get("filename") or _name_from(response, url)))
            sink(name, response.iter_bytes(_CHUNK))
    except (ForbiddenAddress, UnresolvedHost, Redirected, BadRedirect) as exc:
        raise _refused(url, exc) from exc
    except httpx.HTTPError as exc:
        raise TaskFailed("IMPORT_FAILED", f"Could not download {_shown(url)}: {exc}") from exc
    return name


def _refused(url: str, exc: Exception) -> TaskFailed:
    """The task's failure when the guard refused a hop or a redirect could not be followed."""
    via = ""
    if isinstance(exc, Redirected):
        via, exc = f" (redirected from {exc.origin})", exc.refusal
    if isinstance(exc, ForbiddenAddress):
        log.warning(
            "import/url refused: %s resolves to %s, a %s address%s", exc.host, exc.address, exc.kind, via
        )
        return TaskFailed(
            "IMPORT_FORBIDDEN_ADDRESS",
            f"The host {exc.host}{via} resolves to a {exc.kind} address, and this service does not "
            "import from private networks (its operator can allow them with --allow-private-urls).",
        )
    if isinstance(exc, UnresolvedHost):
        return TaskFailed("IMPORT_FAILED", f"Could not resolve the host {exc.host}{via}: {exc.reason}.")
    return TaskFailed("IMPORT_FAILED", f"Could not download {_shown(url)}: {exc}{via}.")


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}{':' + str(parts.port) if parts.port else ''}{parts.path}"


def _name_from(response: httpx.Response, url: str) -> str:
    disposition = response.headers.get("content-disposition")
    if disposition:
        message = Message()
        message["content-disposition"] = disposition
        name = message.get_filename()
        if name:
            return name
    path_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    return path_name if re.search(r"\w", path_name) else "file"
