"""When to repeat a request and how long to wait first.

A 429 waits ``Retry-After`` (shared with every caller through the pacer) and repeats. Idempotent
requests (GET, DELETE, cancel) repeat 5xx answers and network faults after exponential backoff with full
jitter, bounded by a number of tries and a total time. Sleep, randomness and the clock are injectable so
tests run instantly and can see every wait.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["RetryPolicy", "parse_retry_after"]

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds of the repeats. ``backoff(n)`` is the wait before try ``n + 1`` after a fault."""

    attempts: int = 5  # total tries of an idempotent request on 5xx/network faults
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_elapsed: float = 120.0  # no new try once this much time has passed since the first
    rate_limited_attempts: int = 10  # 429 answers waited out before RateLimited is raised
    max_retry_after: float = 600.0  # a longer Retry-After is not waited for
    default_retry_after: float = 5.0  # a 429 without a usable Retry-After
    sleep: Sleep = field(default=asyncio.sleep, repr=False)
    random: Callable[[], float] = field(default=random.random, repr=False)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def backoff(self, failures: int) -> float:
        """Full jitter: uniform in [0, min(max_delay, base * 2**(failures-1))]."""
        ceiling = min(self.max_delay, self.base_delay * (2 ** max(0, failures - 1)))
        return float(ceiling * self.random())


def parse_retry_after(value: str | None, now: Callable[[], datetime] | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None if unusable."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        current = now() if now else datetime.now(UTC)
        seconds = (when - current).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)
