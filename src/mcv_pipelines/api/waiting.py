"""Waiting on the sync host: one long blocking request, re-issued after drops, until a deadline.

Proxies cut long requests (a read timeout, a reset, a 502/504), and the service answers 409
SYNC_WAIT_TIMEOUT once one request has waited its longest: neither is a failure of the job, so the wait
is asked again. A read timeout is the normal end of one blocking request and does not count as
a fault; refused connections and 5xx do, with backoff, and without a deadline end the wait after
``retry.attempts`` in a row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from mcv_pipelines.api.errors import ApiError, NetworkError, ServerError, WaitTimeout
from mcv_pipelines.api.retry import RetryPolicy

__all__ = ["wait_until_ended"]


class _Ending(Protocol):
    @property
    def ended(self) -> bool: ...


E = TypeVar("E", bound=_Ending)
SYNC_WAIT_TIMEOUT = "SYNC_WAIT_TIMEOUT"  # 409 of a sync request that waited the service's longest
EARLY_ANSWER = 1.0  # seconds; a not-ended answer quicker than this is followed by a pause, not a spin


def _still_running(exc: ApiError) -> bool:
    return exc.status == 409 and exc.code == SYNC_WAIT_TIMEOUT


async def wait_until_ended(
    fetch: Callable[[float], Awaitable[E]],
    *,
    what: str,
    max_wait: float | None,
    retry: RetryPolicy,
    sync_read: float,
) -> E:
    """Call ``fetch(read_timeout)`` until what it returns has ended or ``max_wait`` seconds passed."""
    clock = retry.clock
    deadline = None if max_wait is None else clock() + max_wait
    faults = 0
    while True:
        remaining = None if deadline is None else deadline - clock()
        if remaining is not None and remaining <= 0:
            raise WaitTimeout(what, max_wait or 0.0)
        started = clock()
        try:
            item = await fetch(sync_read if remaining is None else min(sync_read, remaining))
        except (NetworkError, ServerError) as exc:
            faults = 0 if isinstance(exc, NetworkError) and exc.timed_out else faults + 1
            if deadline is None and faults >= retry.attempts:
                raise
            if deadline is not None and clock() >= deadline:
                raise WaitTimeout(what, max_wait or 0.0) from exc
            delay = retry.backoff(max(faults, 1))
            await retry.sleep(delay if deadline is None else min(delay, max(0.0, deadline - clock())))
            continue
        except ApiError as exc:
            if not _still_running(exc):
                raise
            # The service's own bound on one blocking request passed: ask again, as after a
            # not-ended answer.
            faults = 0
            if clock() - started < EARLY_ANSWER:
                await retry.sleep(EARLY_ANSWER)
            continue
        if item.ended:
            return item
        faults = 0
        if clock() - started < EARLY_ANSWER:
            await retry.sleep(EARLY_ANSWER)
