"""A file larger than one Swift object may be, written as a Static Large Object: its bytes go as it
comes into segments of the container ``<container>_segments`` (each one streamed PUT, checked by its
MD5), then a manifest listing them in order becomes the object under its own name.

How large a segment is follows from the file's size (known before it is sent) and what the cluster
says of itself at ``/info``: at most its ``max_file_size``, at least its SLO ``min_segment_size``, and
few enough for ``max_manifest_segments``; a gigabyte when those allow it. Segments are named
``<key>/slo/<time>/<size>/<segment size>/<index>``, so a file written twice never mixes its parts. A
write that fails or is aborted deletes the segments it had stored.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.service.files.storage.base import Writer
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.swift_writer import ChunkedPut

__all__ = ["Limits", "SegmentedPut", "segment_size"]

_GIB = 1024**3
_PREFERRED = _GIB  # a segment's size when the cluster's limits allow it


@dataclass(frozen=True)
class Limits:
    """What a Swift cluster's ``/info`` says about object sizes (its defaults when it says nothing)."""

    max_file_size: int = 5 * _GIB + 2
    slo: bool = True  # the cluster takes Static Large Object manifests
    min_segment_size: int = 1
    max_manifest_segments: int = 1000

    @classmethod
    def from_info(cls, info: Any) -> Limits:
        """From ``/info``'s JSON; Swift's defaults (SLO taken) when the cluster hides it."""
        if not isinstance(info, dict):
            return cls()
        swift, slo = info.get("swift"), info.get("slo")
        default = cls()

        def number(table: Any, name: str, fallback: int) -> int:
            value = table.get(name) if isinstance(table, dict) else None
            return int(value) if isinstance(value, int) and value > 0 else fallback

        return cls(
            max_file_size=number(swift, "max_file_size", default.max_file_size),
            slo=isinstance(slo, dict),
            min_segment_size=number(slo, "min_segment_size", default.min_segment_size),
            max_manifest_segments=number(slo, "max_manifest_segments", default.max_manifest_segments),
        )


def segment_size(size: int, limits: Limits, where: str) -> int:
    """The size of each segment of a ``size``-byte file (the last one may be smaller); TaskFailed
    when the cluster cannot hold the file in any way."""
    if not limits.slo:
        raise TaskFailed(
            errors.FAILED,
            f"A file of {size} bytes is larger than one object may be in the {where} "
            f"({limits.max_file_size} bytes), and the cluster takes no Static Large Objects (no slo in "
            "its /info) to store it in segments.",
        )
    needed = math.ceil(size / limits.max_manifest_segments)
    chosen = min(limits.max_file_size, max(_PREFERRED, needed, limits.min_segment_size))
    if chosen < needed or chosen < limits.min_segment_size:
        raise TaskFailed(
            errors.FAILED,
            f"A file of {size} bytes does not fit in {limits.max_manifest_segments} segments of at most "
            f"{limits.max_file_size} bytes, the most the {where} takes.",
        )
    return chosen


@dataclass(frozen=True)
class SegmentCalls:
    """What a SegmentedPut asks of its store: a streamed PUT of one segment (by its name in the
    segments container), the manifest's PUT, and a segment's deletion."""

    segment: Callable[[str], ChunkedPut]
    manifest: Callable[[bytes], None]
    remove: Callable[[str], None]


class SegmentedPut(Writer):
    def __init__(self, calls: SegmentCalls, segments_container: str, key: str, size: int, each: int) -> None:
        self._calls, self._container, self._each = calls, segments_container, each
        self._prefix = f"{key}/slo/{time.time():.6f}/{size}/{each}/"
        self._stored: list[dict[str, Any]] = []
        self._current: ChunkedPut | None = None
        self._done = False

    def _name(self, index: int) -> str:
        return f"{self._prefix}{index:08d}"

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self._current is None:
                self._current = self._calls.segment(self._name(len(self._stored)))
            room = self._each - self._current.size
            self._current.write(bytes(view[:room]))
            self.size += min(room, len(view))
            view = view[room:]
            if self._current.size >= self._each:
                self._close_segment()

    def _close_segment(self) -> None:
        current, self._current = self._current, None
        assert current is not None
        name = self._name(len(self._stored))
        try:
            current.commit()
        finally:
            current.abort()
        self._stored.append(
            {"path": f"/{self._container}/{name}", "etag": current.md5, "size_bytes": current.size}
        )

    def commit(self) -> None:
        if self._current is not None and self._current.size:
            self._close_segment()
        self._calls.manifest(json.dumps(self._stored).encode())
        self._done = True

    def abort(self) -> None:
        if self._done:
            return
        self._done = True
        if self._current is not None:
            self._current.abort()
            self._current = None
        for part in self._stored:
            with contextlib.suppress(Exception):  # best effort: the failure itself is what the user reads
                self._calls.remove(part["path"].split("/", 2)[2])
