"""Progress views of a batch: a live line on a terminal (rich) or a plain line every few seconds.

Both render a ``ProgressSnapshot`` (rows done/total, failed, in flight, rate, ETA) on stderr; ``show``
is cheap to call after every row (it throttles itself) and ``close`` prints the last state.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from mcv_pipelines.batch.progress import ProgressSnapshot

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["PlainBatchView", "RichBatchView", "describe_snapshot"]


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def describe_snapshot(snapshot: ProgressSnapshot) -> str:
    """``rows 120/200 (3 failed, 4 in flight), 5.1 rows/s, ETA 16s``."""
    total = "?" if snapshot.total is None else str(snapshot.total)
    rate = "-" if snapshot.rate is None else f"{snapshot.rate:.1f}"
    eta = "" if snapshot.eta is None else f", ETA {_duration(snapshot.eta)}"
    return (f"rows {snapshot.done}/{total} ({snapshot.failed} failed, {snapshot.in_flight} in flight), "
            f"{rate} rows/s{eta}")


class PlainBatchView:
    """One line at most every ``interval`` seconds (logs, CI)."""

    def __init__(self, snapshot: Callable[[], ProgressSnapshot], *, stream: IO[str] | None = None,
                 interval: float = 5.0) -> None:
        self._snapshot = snapshot
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last: float | None = None  # the first call always speaks

    def show(self) -> None:
        now = time.monotonic()
        # Not `now - 0.0`: the monotonic clock starts near boot, so on a machine up for less than
        # `interval` the first line would be swallowed.
        if self._last is None or now - self._last >= self.interval:
            self._last = now
            self._say()

    def _say(self) -> None:
        self.stream.write(f"mcv batch: {describe_snapshot(self._snapshot())}\n")
        self.stream.flush()

    def close(self) -> None:
        self._say()


class RichBatchView:
    """A single live line, redrawn at most ten times a second."""

    def __init__(self, snapshot: Callable[[], ProgressSnapshot], *, stream: IO[str] | None = None) -> None:
        # rich is imported here, by the one view that draws with it: a batch piped to a log or run
        # with --progress plain/none starts without it (issue 15: about 15 ms of every start).
        from rich.console import Console
        from rich.live import Live

        self._snapshot = snapshot
        self._live = Live(self._line(), console=Console(file=stream or sys.stderr), auto_refresh=False,
                          transient=False)
        self._started = False
        self._last = 0.0

    def show(self) -> None:
        now = time.monotonic()
        if not self._started:
            self._live.start()
            self._started = True
        if now - self._last >= 0.1:
            self._last = now
            self._live.update(self._line(describe_snapshot(self._snapshot())), refresh=True)

    def _line(self, text: str = "") -> Text:
        from rich.text import Text

        return Text(text)

    def close(self) -> None:
        if self._started:
            self._live.update(self._line(describe_snapshot(self._snapshot())), refresh=True)
            self._live.stop()
            self._started = False
