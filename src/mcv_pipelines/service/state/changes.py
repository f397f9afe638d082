"""The change feed: every job and task state change, published once, heard by whoever waits on it.

Writers (the scheduler, workers, the upload route) call ``ChangeFeed.publish`` from any thread after
their transaction commits. Listeners are async (sync waits, ``/wait``, the console's Server-Sent
Events) or threads (a worker waiting for a runnable task). On SQLite every writer is in this process;
on PostgreSQL a listener thread turns NOTIFY payloads from other processes into ``publish`` calls here,
so the listeners are the same code either way.

Example::

    feed = ChangeFeed()
    async with feed.subscribe(lambda c: c.id == job_id) as changes:
        change = await changes.next(within=30)   # None when nothing came
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Change", "ChangeFeed", "Subscription"]

Kind = Literal["job", "task"]
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    """One state change: a job or a task now has ``status`` (``deleted`` when it is gone).

    Task changes also say what ran (``operation``, ``engine``), the error ``code`` of a failed one,
    ``percent`` while it runs and ``seconds`` from start to end once it ended, so that logs and
    metrics can be made from the feed alone. ``remote`` marks a change heard from another process
    (PostgreSQL NOTIFY): waits react to it, but logs and metrics leave it to the process that made it.
    """

    kind: Kind
    id: str
    status: str
    user_id: int | None = None
    job_id: str | None = None
    operation: str | None = None
    engine: str | None = None
    code: str | None = None
    percent: float | None = None
    seconds: float | None = None
    remote: bool = False


Predicate = Callable[[Change], bool]


class Subscription:
    """Changes that match a predicate, queued from the moment of subscribing (none are missed)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, predicate: Predicate | None, limit: int) -> None:
        self._loop = loop
        self._predicate = predicate
        self._queue: deque[Change] = deque(maxlen=limit)
        self._ready = asyncio.Event()
        self.overflowed = False  # more than ``limit`` changes were queued: some were dropped

    def _offer(self, change: Change) -> None:
        """Called from any thread."""
        if self._predicate is None or self._predicate(change):
            self._loop.call_soon_threadsafe(self._put, change)

    def _put(self, change: Change) -> None:
        if len(self._queue) == self._queue.maxlen:
            self.overflowed = True
        self._queue.append(change)
        self._ready.set()

    async def next(self, within: float | None = None) -> Change | None:
        """The next matching change, or None when ``within`` seconds pass without one."""
        while not self._queue:
            self._ready.clear()
            try:
                await asyncio.wait_for(self._ready.wait(), within)
            except TimeoutError:
                return None
        return self._queue.popleft()

    def drain(self) -> list[Change]:
        """Every change queued so far, without waiting."""
        items = list(self._queue)
        self._queue.clear()
        return items


class ChangeFeed:
    """In-process publish/subscribe of state changes; thread-safe, never blocks a publisher."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: set[Subscription] = set()
        self._listeners: list[Callable[[Change], None]] = []
        self._condition = threading.Condition()
        self._generation = 0

    def listen(self, callback: Callable[[Change], None]) -> None:
        """Call ``callback`` with every change, in the publisher's thread (keep it quick: a log line,
        a metric). An exception in it is logged, never passed to the publisher."""
        with self._lock:
            self._listeners.append(callback)

    def publish(self, change: Change) -> None:
        with self._lock:
            subscriptions = list(self._subscriptions)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(change)
            except Exception:  # a listener's bug must not fail the state change that was published
                log.exception("change listener failed on %s %s", change.kind, change.id)
        for subscription in subscriptions:
            with contextlib.suppress(RuntimeError):  # its loop has closed: it is going away
                subscription._offer(change)
        with self._condition:
            self._generation += 1
            self._condition.notify_all()

    @contextlib.asynccontextmanager
    async def subscribe(
        self, predicate: Predicate | None = None, limit: int = 10_000
    ) -> AsyncIterator[Subscription]:
        """Subscribe for the duration of the ``async with`` block (from inside an event loop)."""
        subscription = Subscription(asyncio.get_running_loop(), predicate, limit)
        with self._lock:
            self._subscriptions.add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                self._subscriptions.discard(subscription)

    def subscribers(self) -> int:
        """How many subscriptions are open now (each blocked sync wait holds one)."""
        with self._lock:
            return len(self._subscriptions)

    def generation(self) -> int:
        """A counter that grows with every change; pair it with ``wait_after`` in threads."""
        with self._condition:
            return self._generation

    def wait_after(self, generation: int, timeout: float) -> int:
        """Block a thread until a change newer than ``generation`` (or ``timeout``); the new counter.

        Read ``generation()`` before looking at the state, then ``wait_after`` it: a change made in
        between wakes the wait at once, so nothing is missed.
        """
        with self._condition:
            self._condition.wait_for(lambda: self._generation != generation, timeout)
            return self._generation
