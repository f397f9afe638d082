"""Spreading requests over time so that many concurrent callers do not all run into 429.

One ``Pacer`` is shared by every request of a client (and may be shared between clients). It reads
``X-RateLimit-Limit``/``X-RateLimit-Remaining`` from each answer; while plenty remains, requests go at
once; when the remaining budget drops under ``reserve`` of the limit, requests are spaced
``window / remaining`` apart (capped), and a 429's ``Retry-After`` holds back every caller until it
has passed. The budget is counted down locally between answers so concurrent callers see each other.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

__all__ = ["Pacer", "RateLimitInfo"]


@dataclass(frozen=True, slots=True)
class RateLimitInfo:
    """The last rate-limit headers seen (None when an answer did not carry them)."""

    limit: int | None
    remaining: int | None
    retry_after: float | None
    observed_at: float


def _header_int(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class Pacer:
    """Decides how long each request waits before it is sent."""

    def __init__(
        self,
        *,
        window: float = 60.0,
        reserve: float = 0.2,
        max_spacing: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.window = window
        self.reserve = reserve
        self.max_spacing = max_spacing
        self._clock = clock
        self._sleep = sleep
        self._lock = asyncio.Lock()
        self._limit: int | None = None
        self._remaining: int | None = None
        self._blocked_until = 0.0
        self._next_slot = 0.0
        self.last: RateLimitInfo | None = None

    def spacing(self) -> float:
        """Seconds between requests at the current budget (0 while plenty remains)."""
        if self._limit is None or self._remaining is None or self._limit <= 0:
            return 0.0
        if self._remaining > self._limit * self.reserve:
            return 0.0
        return min(self.max_spacing, self.window / max(self._remaining, 1))

    async def acquire(self) -> float:
        """Wait for this request's turn; returns the seconds waited."""
        async with self._lock:
            now = self._clock()
            start = max(now, self._blocked_until, self._next_slot)
            self._next_slot = start + self.spacing()
            if self._remaining is not None:
                self._remaining = max(0, self._remaining - 1)
        delay = start - now
        if delay > 0:
            await self._sleep(delay)
        return max(0.0, delay)

    def observe(self, headers: Mapping[str, str], retry_after: float | None = None) -> None:
        """Record the rate-limit headers of an answer; a ``retry_after`` blocks everyone that long."""
        limit = _header_int(headers, "x-ratelimit-limit")
        remaining = _header_int(headers, "x-ratelimit-remaining")
        now = self._clock()
        if limit is not None:
            self._limit = limit
        if remaining is not None:
            self._remaining = remaining
        if retry_after is not None:
            self._blocked_until = max(self._blocked_until, now + retry_after)
        if limit is not None or remaining is not None or retry_after is not None:
            self.last = RateLimitInfo(limit, remaining, retry_after, now)
