"""Default timeouts of the client, in seconds."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

__all__ = ["Timeouts"]


@dataclass(frozen=True)
class Timeouts:
    """``sync_read`` bounds one blocking wait request; the wait re-issues it up to its own deadline."""

    connect: float = 10.0
    read: float = 60.0
    write: float = 60.0
    pool: float = 30.0
    sync_read: float = 300.0
    transfer_read: float = 120.0

    def api(self, read: float | None = None) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=read or self.read, write=self.write, pool=self.pool)

    def transfer(self) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=self.transfer_read, write=self.transfer_read, pool=self.pool)
