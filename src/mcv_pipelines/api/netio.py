"""Sockets for httpx on plain asyncio: httpcore's network backend without anyio's per-call machinery.

httpx's default transport reaches the network through httpcore's anyio backend. On asyncio each read
and write there opens an anyio cancel scope (``fail_after``: a task lookup, a timer, a context manager)
and each reuse of a pooled connection asks anyio for the raw socket by building a dict of attribute
getters; together about a fifth of ``mcv batch``'s CPU per row (issue 15). This backend does the same
work on an ``asyncio.Protocol``: bytes arrive in a deque, a read that has to wait parks on one future
with one ``call_later`` for its timeout, and TLS goes through ``loop.start_tls``.

Only the network layer changes: connection pooling, HTTP/1.1 parsing, proxies read from the environment
and the mapping of httpcore's errors to httpx's stay httpx's own. ``use_asyncio_sockets`` swaps the
backend into the pools of a client httpx built itself; a caller's own transport is left alone.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import select
import socket
import ssl
from collections.abc import Iterable
from typing import Any, cast

import httpcore
import httpx

__all__ = ["AsyncioBackend", "use_asyncio_sockets"]

_PAUSE_AT = 1024 * 1024  # stop reading the socket while this much is buffered and unread
_RESUME_AT = 256 * 1024
_EYEBALLS_DELAY = 0.25  # as anyio.connect_tcp, which the default backend uses


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


class _Protocol(asyncio.Protocol):
    """Buffers what the socket receives and wakes the one reader or writer waiting on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.chunks: collections.deque[bytes] = collections.deque()
        self.buffered = 0
        self.eof = False
        self.lost = False
        self.error: BaseException | None = None
        self.reading_paused = False
        self.writing_paused = False
        self.read_waiter: asyncio.Future[None] | None = None
        self.drain_waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport, hence a cast and no isinstance.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered > _PAUSE_AT and not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()
        self._wake_reader()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake_reader()
        return False  # let the transport close its end too, as HTTP/1.1 has no use for a half-open socket

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.lost = True
        self.error = exc
        self._wake_reader()
        self.resume_writing()

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        waiter, self.drain_waiter = self.drain_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_reader(self) -> None:
        waiter, self.read_waiter = self.read_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, waiter: asyncio.Future[None], seconds: float | None) -> None:
        """Await ``waiter``; a ``TimeoutError`` after ``seconds`` (one timer, no cancel scope)."""
        if seconds is None:
            await waiter
            return
        timer = self.loop.call_later(max(seconds, 0.0), _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection (plain or TLS) as httpcore reads and writes it."""

    def __init__(self, protocol: _Protocol, transport: asyncio.Transport) -> None:
        self._protocol = protocol
        self._transport = transport
        raw = transport.get_extra_info("socket")
        # The raw socket, polled to see whether an idle pooled connection was closed by the server.
        self._fileno = raw.fileno() if raw is not None else -1

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109 (httpcore's signature)
        protocol = self._protocol
        while not protocol.chunks:
            if protocol.eof:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
                return b""
            waiter = protocol.loop.create_future()
            protocol.read_waiter = waiter
            try:
                await protocol.wait(waiter, timeout)
            except TimeoutError:
                raise httpcore.ReadTimeout("timed out") from None
            finally:
                protocol.read_waiter = None
        data = protocol.chunks.popleft()
        if len(data) > max_bytes:
            protocol.chunks.appendleft(data[max_bytes:])
            data = data[:max_bytes]
        protocol.buffered -= len(data)
        if protocol.reading_paused and protocol.buffered <= _RESUME_AT and not protocol.lost:
            protocol.reading_paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109 (httpcore's signature)
        if not buffer:
            return
        protocol = self._protocol
        if protocol.lost or self._transport.is_closing():
            raise httpcore.WriteError(_lost_reason(protocol))
        self._transport.write(buffer)
        while protocol.writing_paused and not protocol.lost:
            waiter = protocol.loop.create_future()
            protocol.drain_waiter = waiter
            try:
                await protocol.wait(waiter, timeout)
            except TimeoutError:
                raise httpcore.WriteTimeout("timed out") from None
            finally:
                protocol.drain_waiter = None

    async def aclose(self) -> None:
        self._transport.close()

    def close(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
    ) -> httpcore.AsyncNetworkStream:
        loop = self._protocol.loop
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore.ConnectTimeout("timed out during the TLS handshake") from None
        except (OSError, ssl.SSLError) as exc:  # ssl.SSLError is an OSError; named for the reader
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("connection closed during the TLS handshake")
        self._protocol.transport = transport  # start_tls does not call connection_made again
        return AsyncioStream(self._protocol, transport)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            protocol = self._protocol
            return bool(protocol.chunks) or protocol.eof or _socket_readable(self._fileno)
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return None


def _lost_reason(protocol: _Protocol) -> str:
    if protocol.error is not None:
        return str(protocol.error) or type(protocol.error).__name__
    return "connection closed"


def _socket_readable(fileno: int) -> bool:
    """True when the socket has data or an end of file waiting: the server closed an idle connection."""
    if fileno < 0:
        return True
    poller = select.poll()
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(0))


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Opens connections for httpcore's pools with ``loop.create_connection``."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await self._open(loop, host, port, local)
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return _stream(transport, protocol, socket_options)

    @staticmethod
    async def _open(
        loop: asyncio.AbstractEventLoop, host: str, port: int, local: tuple[str, int] | None
    ) -> tuple[asyncio.BaseTransport, _Protocol]:
        """Connect to ``host``: straight to its address when it has one, else racing its addresses.

        The race (happy eyeballs, asyncio.staggered) drops a socket that connected just as a
        timeout cancelled it, unclosed: a ResourceWarning, and the server's connection left open
        until garbage collection. A plain connect closes its socket on cancellation, so the race is
        kept for names with more than one address (IPv6 and IPv4 both), where it pays.
        """
        addresses = [host]
        if not _is_address(host):
            found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
        if len(addresses) == 1 or not isinstance(loop, asyncio.BaseEventLoop):  # uvloop: no race option
            return await loop.create_connection(lambda: _Protocol(loop), addresses[0], port, local_addr=local)
        return await loop.create_connection(
            lambda: _Protocol(loop), host, port, local_addr=local, happy_eyeballs_delay=_EYEBALLS_DELAY
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_unix_connection(lambda: _Protocol(loop), path)
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return _stream(transport, protocol, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _stream(
    transport: asyncio.BaseTransport,
    protocol: _Protocol,
    socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
) -> AsyncioStream:
    raw: socket.socket | None = transport.get_extra_info("socket")
    if raw is not None:
        for option in socket_options or ():
            raw.setsockopt(*option)
    return AsyncioStream(protocol, cast(asyncio.Transport, transport))


def use_asyncio_sockets(http: httpx.AsyncClient) -> None:
    """Give the connection pools httpx built for ``http`` (direct and per proxy) the asyncio backend.

    httpx offers no public way to choose httpcore's backend while keeping its own transport (and with
    it the proxies from the environment, which a ``transport=`` would turn off), so the pools are
    reached through their attributes. When a future httpx or httpcore names them differently, nothing
    is swapped and the default backend keeps working.
    """
    backend = AsyncioBackend()
    transports: list[Any] = [getattr(http, "_transport", None)]
    transports.extend(getattr(http, "_mounts", {}).values())
    for transport in transports:
        if type(transport) is not httpx.AsyncHTTPTransport:
            continue
        pool = getattr(transport, "_pool", None)
        if isinstance(pool, httpcore.AsyncConnectionPool) and hasattr(pool, "_network_backend"):
            pool._network_backend = backend
