"""A token bucket per API key on job and task creation, and the headers that show it.

Creation endpoints call ``RateLimiter.take``; the middleware adds X-RateLimit-Limit and
X-RateLimit-Remaining to every answer of an authenticated request.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcv_pipelines.service.http.errors import ApiError

__all__ = ["RATE_KEY", "RateLimitHeaders", "RateLimiter"]

RATE_KEY = "mcv_rate_key"  # request.state attribute naming the caller's key


class RateLimiter:
    """``limit`` creations per ``period`` seconds per key, refilled continuously.

    ``clock`` (seconds, monotonic) is injectable so that tests move time themselves.
    """

    def __init__(self, limit: int, period: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.period = period
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._limits: dict[str, int] = {}  # keys with a limit of their own

    def set_limit(self, key: str, limit: int | None) -> None:
        """Give ``key`` a limit of its own (None: the service's)."""
        with self._lock:
            if limit is None:
                self._limits.pop(key, None)
            else:
                self._limits[key] = limit

    def limit_of(self, key: str) -> int:
        return self._limits.get(key, self.limit)

    def _refill(self, key: str) -> float:
        limit = self.limit_of(key)
        now = self._clock()
        tokens, at = self._buckets.get(key, (float(limit), now))
        tokens = min(float(limit), tokens + (now - at) * limit / self.period)
        self._buckets[key] = (tokens, now)
        return tokens

    def remaining(self, key: str) -> int:
        if self.limit_of(key) <= 0:
            return 0
        with self._lock:
            return int(self._refill(key))

    def take(self, key: str) -> None:
        """Spend one token or answer 429 with Retry-After (never when the limit is 0: off)."""
        limit = self.limit_of(key)
        if limit <= 0:
            return
        with self._lock:
            tokens = self._refill(key)
            if tokens < 1:
                wait = math.ceil((1 - tokens) * self.period / limit)
                raise ApiError(
                    429,
                    "TOO_MANY_REQUESTS",
                    "Too many requests; retry after the wait.",
                    headers={"Retry-After": str(max(1, wait))},
                )
            self._buckets[key] = (tokens - 1, self._buckets[key][1])


class RateLimitHeaders:
    """Pure ASGI middleware: adds the caller's rate-limit headers to every answer."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                key = scope.get("state", {}).get(RATE_KEY)
                if key is not None and self.limiter.limit_of(key) > 0:
                    headers = list(message.get("headers", []))
                    headers.append((b"x-ratelimit-limit", str(self.limiter.limit_of(key)).encode()))
                    headers.append((b"x-ratelimit-remaining", str(self.limiter.remaining(key)).encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
