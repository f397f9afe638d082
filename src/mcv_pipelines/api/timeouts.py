"""Default timeouts of the client, in seconds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from mcv_pipelines.api.settings import Settings

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

    @classmethod
    def of(cls, settings: Settings) -> Timeouts:
        """The defaults, with the connect and read timeouts the user set (flags, MCV_*, profile).

        A read timeout set by the user bounds every read and write, transfers included."""
        base = cls()
        read = settings.read_timeout
        return cls(
            connect=settings.connect_timeout or base.connect,
            read=read or base.read,
            write=read or base.write,
            transfer_read=read or base.transfer_read,
        )

    def api(self, read: float | None = None) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=read or self.read, write=self.write, pool=self.pool)

    def transfer(self) -> httpx.Timeout:
        return httpx.Timeout(self.connect, read=self.transfer_read, write=self.transfer_read, pool=self.pool)
