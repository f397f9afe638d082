"""A pure model of a batch's progress (rows done, failed, in flight, rate, ETA); the CLI renders it.

The rate is rows completed per second over a sliding window, so it follows the service's current pace
rather than the average since the start; rows already done before a resume count toward ``done`` but
not toward the rate.

>>> clock = iter([0.0, 10.0, 10.0]).__next__
>>> progress = Progress(total=100, clock=clock)
>>> progress.start(); progress.finish()
>>> progress.snapshot().done
1
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Progress", "ProgressSnapshot"]


@dataclass(frozen=True, slots=True)
class ProgressSnapshot:
    total: int | None
    finished: int
    failed: int
    in_flight: int
    rate: float | None
    """Rows per second over the window; None until a row completes in it."""
    eta: float | None
    """Seconds until every row is done at the current rate; None when unknown."""
    elapsed: float

    @property
    def done(self) -> int:
        """Rows in an end state: finished or failed."""
        return self.finished + self.failed

    @property
    def remaining(self) -> int | None:
        return None if self.total is None else max(self.total - self.done, 0)


class Progress:
    """Counts row events; ``snapshot()`` gives the numbers to show. Not thread-safe: one event loop."""

    def __init__(self, total: int | None, *, finished: int = 0, failed: int = 0, window: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if window <= 0:
            raise ValueError("window must be positive")
        self.total = total
        self.finished = finished
        self.failed = failed
        self.in_flight = 0
        self._window = window
        self._clock = clock
        self._started = clock()
        self._completions: deque[float] = deque()

    def start(self) -> None:
        """A row was sent (or resumed and followed)."""
        self.in_flight += 1

    def finish(self) -> None:
        """A row in flight finished."""
        self._complete()
        self.finished += 1

    def fail(self, *, in_flight: bool = True) -> None:
        """A row failed; ``in_flight=False`` for a row that failed before it was sent."""
        self._complete(in_flight)
        self.failed += 1

    def _complete(self, in_flight: bool = True) -> None:
        if in_flight:
            self.in_flight = max(self.in_flight - 1, 0)
        self._completions.append(self._clock())

    def snapshot(self) -> ProgressSnapshot:
        now = self._clock()
        while self._completions and self._completions[0] <= now - self._window:
            self._completions.popleft()
        span = min(self._window, now - self._started)
        rate = len(self._completions) / span if self._completions and span > 0 else None
        done = self.finished + self.failed
        eta = None
        if rate and self.total is not None:
            eta = max(self.total - done, 0) / rate
        return ProgressSnapshot(self.total, self.finished, self.failed, self.in_flight, rate, eta,
                                now - self._started)
