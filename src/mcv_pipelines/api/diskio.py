"""Disk reads and writes that overlap the network: read-ahead for uploads, write-behind for downloads.

A transfer alternates between the socket and the disk. Done in turn on the event loop, a slow disk
(dirty page-cache throttling: 3 ms per MiB written was measured here) stalls the socket; done with one
``await asyncio.to_thread`` per small chunk, the thread hand-offs cost more than the copies (issue 15).
So the disk side runs on a worker thread one big chunk ahead (or behind) of the socket side: the next
read or the last write proceeds while the loop moves bytes, and there is one hop per MiB. A file or a
last piece of at most ``INLINE_SIZE`` is read or written on the loop instead: for a batch of small
files the hop cost more than the copy (~14% of `mcv batch`'s CPU on 16x16 images, issue 15).

Example::

    async with WriteBehind(path.open("wb")) as out:
        async for chunk in response.aiter_bytes():
            await out.add(chunk)          # a write starts once 1 MiB has gathered
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import BinaryIO

__all__ = ["CHUNK_SIZE", "INLINE_SIZE", "WriteBehind", "read_ahead"]

CHUNK_SIZE = 1024 * 1024  # per disk read or write; two are in memory at most
INLINE_SIZE = 64 * 1024  # at most this much is read or written on the loop itself (tens of us)


async def read_ahead(
    handle: BinaryIO, size: int, chunk_size: int = CHUNK_SIZE
) -> AsyncGenerator[bytes, None]:
    """Up to ``size`` bytes of ``handle`` in chunks, the next one read while the caller uses this one.

    Stops early at the end of the file (the caller compares the count). An OSError of a read is raised
    where the chunk would have been yielded. ``handle`` is left open.
    """
    if size <= min(INLINE_SIZE, chunk_size):  # one piece: no hop
        left = size
        while left > 0:
            chunk = handle.read(left)
            if not chunk:
                return
            left -= len(chunk)
            yield chunk
        return
    loop = asyncio.get_running_loop()
    left = size
    pending: asyncio.Future[bytes] | None = None
    try:
        if left > 0:
            pending = loop.run_in_executor(None, handle.read, min(chunk_size, left))
        while pending is not None:
            chunk = await pending
            pending = None
            if not chunk:
                return
            left -= len(chunk)
            if left > 0:
                pending = loop.run_in_executor(None, handle.read, min(chunk_size, left))
            yield chunk
    finally:
        if pending is not None:  # closed early: let the read in flight finish before the file closes
            with contextlib.suppress(Exception):
                await pending


class WriteBehind:
    """Gathers bytes to ``chunk_size`` and writes them on a worker thread while more arrive.

    ``written`` counts the bytes handed over; ``flush`` waits until they are all on the file (call it
    before seeking, truncating or closing). A failed write raises its OSError from the next
    ``add``/``flush``. The ``async with`` form flushes and closes the file.
    """

    def __init__(self, handle: BinaryIO, chunk_size: int = CHUNK_SIZE) -> None:
        self.handle = handle
        self.chunk_size = chunk_size
        self.written = 0
        self._buffer = bytearray()
        self._inflight: asyncio.Future[int] | None = None

    async def add(self, data: bytes) -> bool:
        """Take ``data``; True when a full chunk was handed to the writer (a moment to report)."""
        self._buffer += data
        if len(self._buffer) < self.chunk_size:
            return False
        await self._hand_over()
        return True

    async def flush(self) -> None:
        """Write what is gathered and wait for every write to finish."""
        await self._hand_over()
        await self._wait()

    async def _hand_over(self) -> None:
        if not self._buffer:
            return
        await self._wait()  # one write at a time, in order
        data, self._buffer = self._buffer, bytearray()  # the writer owns it now: no copy
        self.written += len(data)
        if len(data) <= INLINE_SIZE:
            self.handle.write(data)
            return
        self._inflight = asyncio.get_running_loop().run_in_executor(None, self.handle.write, data)

    async def _wait(self) -> None:
        if self._inflight is not None:
            inflight, self._inflight = self._inflight, None
            await inflight

    async def __aenter__(self) -> WriteBehind:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if kind is None:
                await self.flush()
            else:  # already failing: keep what was received (a resume continues from it), report that
                with contextlib.suppress(OSError):
                    await self.flush()
        finally:
            self.handle.close()
