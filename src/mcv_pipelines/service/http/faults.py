"""Fault injection for tests: a seeded share of answers become 429/500/503, dropped connections or
slow answers. Configured from a dataclass or a string such as
``"429=0.1,503=0.05,drop=0.02,delay=0.2:0.5,seed=7"`` (delay: share, then seconds).

``drop`` breaks the connection before the request is handled; ``drop_after`` (POST only) lets the
service carry the request out and then breaks the connection instead of answering: the ambiguous
case a client must not resolve by sending a creating POST again.

Only API paths (/v2, /sync/v2) are affected: upload forms and download links stay reliable, so a
test measures the client's handling of API faults. ``files_delay=SECONDS`` slows download links
(/files) down instead: each chunk of a file's body waits that long, so a test can stop a client in the
middle of a download.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["FaultInjector", "Faults", "parse_faults"]

_STATUSES = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class Faults:
    statuses: dict[int, float] = field(default_factory=dict)  # status -> share of answers
    drop: float = 0.0
    delay_share: float = 0.0
    delay_seconds: float = 0.0
    seed: int = 0
    drop_after: float = 0.0  # POST answers lost after the request was carried out
    files_delay: float = 0.0  # seconds before each body chunk of a /files answer


def parse_faults(spec: str) -> Faults:
    """Parse ``"429=0.1,503=0.05,drop=0.02,drop_after=0.1,delay=0.2:0.5,seed=7"``; ValueError names a
    bad part."""
    statuses: dict[int, float] = {}
    drop = drop_after = delay_share = delay_seconds = files_delay = 0.0
    seed = 0
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, value = part.partition("=")
        try:
            if name.isdigit() and int(name) in _STATUSES:
                statuses[int(name)] = float(value)
            elif name == "drop":
                drop = float(value)
            elif name == "drop_after":
                drop_after = float(value)
            elif name == "delay":
                share, _, seconds = value.partition(":")
                delay_share, delay_seconds = float(share), float(seconds or 1.0)
            elif name == "files_delay":
                files_delay = float(value)
            elif name == "seed":
                seed = int(value)
            else:
                raise ValueError(name)
        except ValueError:
            raise ValueError(
                f"bad fault {part!r}: use 429|500|502|503|504=share, drop=share, drop_after=share, "
                "delay=share:seconds, files_delay=seconds, seed=N"
            ) from None
    if sum(statuses.values()) + drop + drop_after > 1:
        raise ValueError("the fault shares add up to more than 1")
    return Faults(statuses, drop, delay_share, delay_seconds, seed, drop_after, files_delay)


class InjectedDrop(ConnectionAbortedError):
    """Raised to break off an answer on purpose."""


class _QuietDrops(logging.Filter):
    """Keep injected drops out of the server's error log: they are the point, not a bug."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], InjectedDrop))


class FaultInjector:
    """Pure ASGI middleware applying ``Faults`` to API answers."""

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        logging.getLogger("uvicorn.error").addFilter(_QUIET)
        self.app = app
        self.faults = faults
        self._random = random.Random(faults.seed)  # noqa: S311 - test faults, not security
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and self.faults.files_delay and path.startswith("/files"):
            await self.app(scope, receive, self._slowed(send))
            return
        if scope["type"] != "http" or not (path.startswith("/v2") or path.startswith("/sync/v2")):
            await self.app(scope, receive, send)
            return
        with self._lock:
            roll, delay_roll = self._random.random(), self._random.random()
        if delay_roll < self.faults.delay_share:
            await asyncio.sleep(self.faults.delay_seconds)
        threshold = 0.0
        for status, share in sorted(self.faults.statuses.items()):
            threshold += share
            if roll < threshold:
                await _answer(send, status)
                return
        if roll < threshold + self.faults.drop:
            await _break_off(send)
        threshold += self.faults.drop
        if roll < threshold + self.faults.drop_after and scope.get("method") == "POST":
            await self.app(scope, receive, _discard)  # carried out; its answer never leaves
            await _break_off(send)
        await self.app(scope, receive, send)


    def _slowed(self, send: Send) -> Send:
        async def slow(message: Message) -> None:
            if message["type"] == "http.response.body":
                await asyncio.sleep(self.faults.files_delay)
            await send(message)

        return slow


_QUIET = _QuietDrops()


async def _discard(message: Message) -> None:
    del message


async def _break_off(send: Send) -> None:
    """Start an answer and break it off: the client sees the connection drop mid-response."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", b"1000"), (b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": b'{"data":', "more_body": True})
    raise InjectedDrop("injected connection drop")


async def _answer(send: Send, status: int) -> None:
    code = (
        "TOO_MANY_REQUESTS" if status == 429 else "INTERNAL_ERROR" if status == 500 else "SERVICE_UNAVAILABLE"
    )
    body = json.dumps({"message": f"Injected fault {status}.", "code": code}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 429:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
