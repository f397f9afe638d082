"""Task timeouts on one thread: a heap of deadlines instead of a timer thread per task.

Starting and cancelling a thread per task cost about a tenth of the service's CPU per job. Here one
daemon thread (started with the first deadline) sleeps until the earliest deadline, or until a nearer
one is added, and calls ``on_expired(key, seconds)`` for each that passes without being cancelled.
A cancelled deadline stays in the heap until it comes up and is skipped, or until cancelled ones
are most of the heap, which is then rebuilt (tasks end long before their default 5 h timeout).

Example::

    deadlines = Deadlines(lambda task_id, seconds: print(task_id, "timed out after", seconds))
    deadlines.add("t1", 30)
    deadlines.cancel("t1")
    deadlines.stop()
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["Deadlines"]

log = logging.getLogger(__name__)


class Deadlines:
    def __init__(self, on_expired: Callable[[str, float], None], name: str = "mcv-deadlines") -> None:
        self._on_expired = on_expired
        self._name = name
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int, str]] = []
        # key -> (entry number, seconds given, monotonic time when added)
        self._active: dict[str, tuple[int, float, float]] = {}
        self._numbers = itertools.count()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def add(self, key: str, seconds: float) -> None:
        """Call ``on_expired(key, seconds)`` after ``seconds`` unless cancelled (replaces an earlier one)."""
        number = next(self._numbers)
        with self._wake:
            if self._stopped:
                return
            now = time.monotonic()
            self._active[key] = (number, seconds, now)
            heapq.heappush(self._heap, (now + seconds, number, key))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            elif self._heap[0][1] == number:  # the new one comes first: sleep less
                self._wake.notify()

    def cancel(self, key: str) -> float | None:
        """Cancel ``key``'s deadline: the seconds since it was added (None: none was pending)."""
        with self._wake:
            active = self._active.pop(key, None)
            if len(self._heap) > 64 and len(self._heap) > 2 * len(self._active):  # mostly cancelled ones
                self._heap = [entry for entry in self._heap if self._live(entry)]
                heapq.heapify(self._heap)
        return None if active is None else time.monotonic() - active[2]

    def pending(self) -> int:
        """Deadlines added and neither expired nor cancelled."""
        with self._wake:
            return len(self._active)

    def held(self) -> int:
        """Entries kept: the pending deadlines and cancelled ones not yet dropped."""
        with self._wake:
            return len(self._heap)

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._active.clear()
            self._wake.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _loop(self) -> None:
        while True:
            with self._wake:
                due = self._next_due()
                if due is None:
                    return
            key, seconds = due
            try:
                self._on_expired(key, seconds)
            except Exception:  # one task's timeout must not end the others'
                log.exception("timeout of %s failed", key)

    def _next_due(self) -> tuple[str, float] | None:
        """The next expired (key, seconds), waiting for it; None once stopped. Called locked."""
        while not self._stopped:
            while self._heap and not self._live(self._heap[0]):
                heapq.heappop(self._heap)  # cancelled or replaced
            if not self._heap:
                self._wake.wait()
                continue
            when, _, key = self._heap[0]
            left = when - time.monotonic()
            if left > 0:
                self._wake.wait(min(left, threading.TIMEOUT_MAX))
                continue
            heapq.heappop(self._heap)
            return key, self._active.pop(key)[1]
        return None

    def _live(self, entry: tuple[float, int, str]) -> bool:
        """Not cancelled nor replaced since added. Called locked."""
        active = self._active.get(entry[2])
        return active is not None and active[0] == entry[1]
