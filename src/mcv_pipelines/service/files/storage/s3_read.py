"""Streaming one object of the service's own S3 store, resumed where a cut connection stopped (a
caller's storage resumes its reads through caller_storage/retry.py, as every kind does)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import BotoCoreError

from mcv_pipelines.redact import redact
from mcv_pipelines.service.files.storage.base import CHUNK, StorageError

__all__ = ["object_chunks"]


def object_chunks(
    open_at: Callable[[int], Any], start: int, where: str, retry_for: float, first: Any = None
) -> Iterator[bytes]:
    """The chunks of an object body from ``start``; ``open_at(position)`` is a GET with a Range from
    there (its errors already translated). A read cut mid-stream opens again at the position reached,
    for up to ``retry_for`` seconds. ``first``: a body already opened at ``start``."""
    position, deadline = start, time.monotonic() + retry_for
    body = first if first is not None else open_at(start)
    try:
        while True:
            try:
                chunk = body.read(CHUNK)
            except (BotoCoreError, OSError) as exc:  # cut mid-stream: go on from here
                body.close()
                if time.monotonic() > deadline:
                    raise StorageError(redact(f"Could not {where}: {exc}"), transient=True) from None
                body = open_at(position)
                continue
            if not chunk:
                return
            position += len(chunk)
            yield chunk
    finally:
        body.close()
