"""The service's log: one line per request and per task state change, as text or JSON, to stderr.

Two event loggers carry the facts as a dict (``extra={"fields": ...}``); the formatters turn them
into one line each: JSON for log collectors (``mcv serve --log-format json``) or a human line
(``text``, the default). Other records (warnings, internal errors) come out in the same format.
Every line passes through ``redact``: a registered API key or credential never reaches the log.

JSON lines::

    {"time": "2026-11-22T18:41:09.123Z", "level": "info", "event": "request", "method": "GET",
     "route": "/v2/jobs/{job_id}", "status": 200, "duration_ms": 3.2, "request_id": "9f1c...",
     "user_id": 1}
    {"time": "...", "level": "info", "event": "task", "task_id": "...", "job_id": "...",
     "operation": "convert", "engine": "pillow", "status": "finished", "code": null, "seconds": 1.2,
     "user_id": 1}
    {"time": "...", "level": "warning", "event": "log", "logger": "...", "message": "...", "error": "..."}

Nothing is written unless ``configure`` was called (``mcv serve`` does; the embedded service of
``mcv run`` stays quiet).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import IO, Any, Literal

from mcv_pipelines.redact import redact
from mcv_pipelines.service.state.changes import Change

__all__ = [
    "LOG_FORMATS",
    "JsonFormatter",
    "TaskLog",
    "TextFormatter",
    "configure",
    "log_request",
    "reset",
]

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")
FIELDS = "fields"  # the LogRecord attribute that carries an event's facts

# The loggers keep the names they had before the service moved to mcv_pipelines.service: a user's
# logging configuration may name them.
requests_log = logging.getLogger("mcv_pipelines.local_service.requests")
tasks_log = logging.getLogger("mcv_pipelines.local_service.task_log")


def log_request(
    method: str, route: str, status: int, seconds: float, request_id: str, user_id: int | None
) -> None:
    """One line for one answered request (route template only: no ids, no query string)."""
    level = logging.ERROR if status >= 500 else logging.INFO
    if not requests_log.isEnabledFor(level):
        return
    fields = {
        "event": "request",
        "method": method,
        "route": route,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "request_id": request_id,
        "user_id": user_id,
    }
    requests_log.log(level, "request", extra={FIELDS: fields})


class TaskLog:
    """A change feed listener writing one line per task state change.

    Progress updates repeat a task's status; only a new status is a state change, so the last status
    of recently seen tasks is remembered (bounded) and repeats are skipped.
    """

    def __init__(self, remember: int = 10_000) -> None:
        self._last: OrderedDict[str, str] = OrderedDict()
        self._remember = remember
        self._lock = threading.Lock()

    def __call__(self, change: Change) -> None:
        if change.kind != "task" or change.remote or not tasks_log.isEnabledFor(logging.INFO):
            return
        with self._lock:
            if self._last.get(change.id) == change.status:
                return
            if change.status in ("finished", "error", "deleted"):
                self._last.pop(change.id, None)
            else:
                self._last[change.id] = change.status
                self._last.move_to_end(change.id)
                while len(self._last) > self._remember:
                    self._last.popitem(last=False)
        fields = {
            "event": "task",
            "task_id": change.id,
            "job_id": change.job_id,
            "operation": change.operation,
            "engine": change.engine,
            "status": change.status,
            "code": change.code,
            "seconds": None if change.seconds is None else round(change.seconds, 3),
            "user_id": change.user_id,
        }
        tasks_log.info("task", extra={FIELDS: fields})


def _time(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _error(record: logging.LogRecord, formatter: logging.Formatter) -> str | None:
    if record.exc_info:
        return formatter.formatException(record.exc_info)
    return None


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": _time(record), "level": record.levelname.lower()}
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict):
            line.update(fields)
        else:
            line.update(event="log", logger=record.name, message=record.getMessage())
            error = _error(record, self)
            if error:
                line["error"] = error
        return redact(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    """The same facts on one human line."""

    def format(self, record: logging.LogRecord) -> str:
        head = f"{_time(record)} {record.levelname}"
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict) and fields.get("event") == "request":
            f = fields
            who = f" user {f['user_id']}" if f.get("user_id") is not None else ""
            text = (
                f"{head} {f['method']} {f['route']} {f['status']} {f['duration_ms']:.1f} ms "
                f"(request {f['request_id']}{who})"
            )
        elif isinstance(fields, dict) and fields.get("event") == "task":
            f = fields
            what = "/".join(str(x) for x in (f["operation"], f["engine"]) if x)
            took = f" after {f['seconds']:.2f} s" if f.get("seconds") is not None else ""
            code = f" {f['code']}" if f.get("code") else ""
            job = f", job {f['job_id']}" if f.get("job_id") else ""
            text = f"{head} task {f['task_id']} {what} {f['status']}{code}{took}{job}"
        else:
            text = f"{head} {record.name}: {record.getMessage()}"
            error = _error(record, self)
            if error:
                text += "\n" + error
        return redact(text)


_FORMATTERS: dict[LogFormat, type[logging.Formatter]] = {"text": TextFormatter, "json": JsonFormatter}
_installed: list[tuple[logging.Logger, logging.Handler]] = []
# What every LogRecord looks up and these formatters never print: the calling frame (a walk up the
# stack), the thread's and process's names. The logging HOWTO's "Optimization" knobs turn them off for
# the service's process while it is configured: a third of a line's cost, at 7 lines a job.
_LOOKUPS = ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing")
_saved: dict[str, object] = {}


def configure(log_format: LogFormat, stream: IO[str] | None = None) -> None:
    """Send the service's log (and uvicorn's) to ``stream`` (stderr) in ``log_format``.

    Requests and task changes at INFO; everything else at WARNING, as before (some modules say more
    at INFO than an operator's log should carry, e.g. webhook URLs).
    """
    reset()
    _saved.update({name: getattr(logging, name) for name in _LOOKUPS})
    for name in _LOOKUPS:
        setattr(logging, name, None if name == "_srcfile" else False)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(_FORMATTERS[log_format]())
    for name, level in (
        ("mcv_pipelines", logging.WARNING),
        ("uvicorn", logging.WARNING),
        (requests_log.name, logging.INFO),
        (tasks_log.name, logging.INFO),
    ):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if name in ("mcv_pipelines", "uvicorn"):
            logger.addHandler(handler)
            logger.propagate = False
            _installed.append((logger, handler))


def reset() -> None:
    """Undo ``configure`` (tests call several services in one process)."""
    while _installed:
        logger, handler = _installed.pop()
        logger.removeHandler(handler)
        logger.propagate = True
    for name, value in _saved.items():
        setattr(logging, name, value)
    _saved.clear()
    for name in ("mcv_pipelines", "uvicorn", requests_log.name, tasks_log.name):
        logging.getLogger(name).setLevel(logging.NOTSET)
