"""Progress views of a run, fed by its events: plain lines (logs, CI) or a live rich view (terminal).

Both write to a stream (stderr by default), so the summary on stdout stays clean for pipes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from mcv_pipelines.redact import redact

if TYPE_CHECKING:  # rich is imported by RichProgress itself: plain progress and `mcv batch` go without
    from rich.console import Console
    from rich.progress import TaskID

__all__ = ["PlainProgress", "RichProgress", "human_size"]


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def _short(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


class PlainProgress:
    """One line per event a person cares about (not byte counts)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr

    def _say(self, text: str) -> None:
        self.stream.write(redact(text) + "\n")
        self.stream.flush()

    def emit(self, kind: str, /, **data: Any) -> None:
        if kind == "submitted":
            self._say(f"job {data['job_id']} created ({data['tasks']} tasks, tag {data['tag']})")
        elif kind == "reconciled":
            self._say(f"found the job created before the answer was lost: {data['job_id']}")
        elif kind == "uploaded":
            self._say(f"uploaded {_short(data['file'])} to {data['task']} ({human_size(data['size'])})")
        elif kind == "task":
            extra = f" {data['percent']}%" if data["status"] == "processing" and data.get("percent") else ""
            message = f": {data['message']}" if data.get("message") and data["status"] != "finished" else ""
            self._say(f"task {data['task']} {data['status']}{extra}{message}")
        elif kind == "downloaded":
            self._say(f"downloaded {_short(data['file'])} ({human_size(data['size'])})")
        elif kind == "notice":
            self._say(str(data["message"]))


class RichProgress:
    """A live table: one row per task (status, percent, message) and per upload/download (bytes)."""

    def __init__(self, stream: IO[str] | None = None, *, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self.console = console or Console(file=stream or sys.stderr)
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[info]}"),
            console=self.console,
            transient=False,
        )
        self.rows: dict[str, TaskID] = {}
        self.started = False

    def _row(self, key: str, label: str, total: float | None) -> TaskID:
        if key not in self.rows:
            self.rows[key] = self.progress.add_task(label, total=total, info="")
        return self.rows[key]

    def start(self) -> None:
        if not self.started:
            self.progress.start()
            self.started = True

    def stop(self) -> None:
        if self.started:
            self.progress.stop()
            self.started = False

    def emit(self, kind: str, /, **data: Any) -> None:
        self.start()
        if kind in ("upload", "download"):
            arrow = "↑" if kind == "upload" else "↓"
            label = _short(str(data.get("file", data["task"]))) if kind == "download" else data["task"]
            row = self._row(f"{kind}:{label}", f"{arrow} {label}", data.get("total"))
            total = data.get("total")
            info = human_size(data["done"]) + (f" / {human_size(total)}" if total else "")
            self.progress.update(row, completed=data["done"], total=total, info=info)
        elif kind == "task":
            row = self._row(f"task:{data['task']}", f"  {data['task']}", 100)
            percent = 100 if data["status"] == "finished" else data.get("percent") or 0
            info = data["status"] + (f": {data['message']}" if data.get("message") else "")
            self.progress.update(row, completed=percent, info=redact(info)[:60])
        elif kind in ("submitted", "reconciled", "notice"):
            text = data.get("message") or f"job {data['job_id']}"
            self.progress.console.print(redact(str(text)))
        elif kind in ("finished", "failed", "interrupted", "timeout"):
            self.stop()
