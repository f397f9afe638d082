"""The rate limit of a team's API processes, counted in the database they share (issue 25).

Same token bucket as ratelimit.py, but the bucket of a key is a row of ``rate_buckets`` (by the key's
hash, never the key) refilled and spent in one statement on the database's clock: N API processes
behind a load balancer let a key make its limit, not N times it. The X-RateLimit-Remaining header
shows what this process last saw, refilled since (no query per answer).
"""

# The SQL joins only the Database's own clock expression; every value goes through ? marks.
# ruff: noqa: S608

from __future__ import annotations

import math
import threading
import time

from mcv_pipelines.service.http.errors import ApiError
from mcv_pipelines.service.http.ratelimit import RateLimiter
from mcv_pipelines.service.state.accounts import hash_key
from mcv_pipelines.service.state.database import Database

__all__ = ["SharedRateLimiter"]


class SharedRateLimiter(RateLimiter):
    def __init__(self, db: Database, limit: int, period: float) -> None:
        super().__init__(limit, period)
        self._db = db
        self._seen: dict[str, tuple[float, float]] = {}  # key -> (tokens left, monotonic time)
        self._seen_lock = threading.Lock()
        now = db.now_sql
        refill = f"LEAST(?, rate_buckets.tokens + ({now} - rate_buckets.updated_at) * ? / ?)"
        self._spend = (
            f"INSERT INTO rate_buckets (key_hash, tokens, updated_at) VALUES (?, ?, {now})"
            f" ON CONFLICT (key_hash) DO UPDATE SET tokens = {refill} - 1, updated_at = {now}"
            f" WHERE {refill} >= 1 RETURNING tokens"
        )
        self._look = (
            f"SELECT LEAST(?, tokens + ({now} - updated_at) * ? / ?) FROM rate_buckets WHERE key_hash = ?"
        )

    def remaining(self, key: str) -> int:
        limit = self.limit_of(key)
        if limit <= 0:
            return 0
        with self._seen_lock:
            tokens, at = self._seen.get(key, (float(limit), time.monotonic()))
        return int(min(float(limit), tokens + (time.monotonic() - at) * limit / self.period))

    def take(self, key: str) -> None:
        limit = self.limit_of(key)
        if limit <= 0:
            return
        digest, rate = hash_key(key), (limit, limit, self.period)
        with self._db.transaction() as tx:
            spent = tx.one(self._spend, (digest, limit - 1, *rate, *rate))
            left = float(spent[0]) if spent is not None else None
            if left is None:
                row = tx.one(self._look, (*rate, digest))
                tokens = float(row[0]) if row is not None else 0.0
        with self._seen_lock:
            self._seen[key] = (left if left is not None else tokens, time.monotonic())
        if left is None:
            wait = math.ceil((1 - tokens) * self.period / limit)
            raise ApiError(
                429,
                "TOO_MANY_REQUESTS",
                "Too many requests; retry after the wait.",
                headers={"Retry-After": str(max(1, wait))},
            )
