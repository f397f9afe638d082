"""Events of one run: what happened, when, for progress views and for machines (``--events FILE``).

An ``EventSink`` receives ``emit(kind, **data)``. Kinds: ``submitted``, ``reconciled``, ``upload``
(bytes so far), ``uploaded``, ``task`` (a task's status, percent or message changed), ``download``
(bytes so far), ``downloaded``, ``finished``, ``failed``, ``timeout``, ``interrupted``, ``notice``.
Byte-progress kinds (``upload``, ``download``) are for live views; the JSON-lines file leaves them out.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

from mcv_pipelines.redact import redact

__all__ = ["PROGRESS_KINDS", "EventSink", "JsonLinesEvents", "NullEvents", "Tee"]

PROGRESS_KINDS = frozenset({"upload", "download"})


class EventSink(Protocol):
    def emit(self, kind: str, /, **data: Any) -> None: ...


class NullEvents:
    """Drops every event."""

    def emit(self, kind: str, /, **data: Any) -> None:
        return None


class Tee:
    """Hands every event to each of ``sinks`` in turn."""

    def __init__(self, sinks: Sequence[EventSink]) -> None:
        self.sinks = tuple(sinks)

    def emit(self, kind: str, /, **data: Any) -> None:
        for sink in self.sinks:
            sink.emit(kind, **data)


class JsonLinesEvents:
    """One JSON object per line: ``{"time": ISO-8601, "event": kind, ...data}``, secrets masked.

    The file is flushed after each line so a watcher (or a killed run) sees every event so far.
    """

    def __init__(self, path: str | Path | None = None, *, stream: IO[str] | None = None) -> None:
        if stream is None:
            if path is None:
                raise ValueError("give a path or a stream")
            stream = Path(path).open("a", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._owned = True
        else:
            self._owned = False
        self.stream = stream
        self._lock = threading.Lock()

    def emit(self, kind: str, /, **data: Any) -> None:
        if kind in PROGRESS_KINDS:
            return
        record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), "event": kind, **data}
        line = redact(json.dumps(record, default=str, sort_keys=False))
        with self._lock:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._owned:
            self.stream.close()
