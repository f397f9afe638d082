"""One transaction per state change, and what it tells others only once it committed.

A task's end and the start of the dependants it frees are one write (issue 40: they were two, then
more); the changes, webhooks and pool work they cause are kept (``after``) and done once the
transaction committed, so nobody hears of a change that could still be rolled back. Per thread:
a nested ``OneWrite`` block joins the outer one, whose commit runs everything kept.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from mcv_pipelines.service.state.store import Store

__all__ = ["OneWrite"]


class OneWrite:
    """``with one_write():`` one transaction (the scheduler's lock taken first, as ``kick`` takes
    them); ``one_write.after(action)`` runs ``action`` once it committed (at once, outside one)."""

    def __init__(self, lock: threading.RLock, store: Store) -> None:
        self._lock = lock
        self._store = store
        self._local = threading.local()  # .after: actions kept by this thread's open block

    @contextlib.contextmanager
    def __call__(self, committed: list[bool] | None = None) -> Iterator[None]:
        """``committed`` gets True once the block committed (an error after that is not the write's)."""
        if getattr(self._local, "after", None) is not None:
            yield
            return
        after: list[Callable[[], None]] = []
        self._local.after = after
        try:
            with self._lock, self._store.transaction():
                yield
        finally:
            self._local.after = None
        if committed is not None:
            committed.append(True)
        for action in after:
            action()

    def after(self, action: Callable[[], None]) -> None:
        pending: list[Callable[[], None]] | None = getattr(self._local, "after", None)
        if pending is None:
            action()
        else:
            pending.append(action)
