"""A lean HTTP/1.1 transport for httpx: keep-alive connections on asyncio sockets, framing by h11.

httpcore's pool pays for generality on every request (HTTP/2, a request queue reassigned under an anyio
lock, events, cancel shields): with its parsing it was ~45% of ``mcv batch``'s CPU per row (issue 15).
The client only speaks HTTP/1.1 to a few hosts, so this transport keeps, per (scheme, host, port), a
stack of idle connections; a request takes one (or opens one, within ``max_connections``), writes with
h11, and gives the connection back when the body has been read to its end. Everything else (redirects,
cookies, proxies from the environment, which go through httpx's own proxy transports) stays httpx's.

Errors are httpx's own, as its default transport raises them: ``ConnectError``/``ConnectTimeout`` before
a byte was sent, ``WriteError``/``WriteTimeout`` while sending, ``ReadError``/``ReadTimeout`` and
``RemoteProtocolError`` while reading, ``PoolTimeout`` when no connection became free in time.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ssl
import time
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpcore
import httpx

from mcv_pipelines.api.netio import AsyncioBackend, AsyncioStream, use_asyncio_sockets

__all__ = ["LeanTransport", "lean_client", "use_lean_transport"]

_READ_SIZE = 256 * 1024  # what asyncio hands over per socket read: no slicing of its chunks
_BACKEND = AsyncioBackend()
Origin = tuple[bytes, bytes, int]  # scheme, host, port


class _Connection:
    def __init__(self, stream: AsyncioStream, origin: Origin) -> None:
        self.stream = stream
        self.origin = origin
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = 0.0

    def reusable(self, now: float, expiry: float) -> bool:
        return now - self.idle_since < expiry and not self.stream.get_extra_info("is_readable")

    async def send(self, request: httpx.Request, seconds: float | None) -> None:
        conn = self.h11
        try:
            head = conn.send(
                h11.Request(method=request.method, target=request.url.raw_path, headers=request.headers.raw)
            )
            assert head is not None
            await self._write(head, seconds)
            assert isinstance(request.stream, httpx.AsyncByteStream)
            async for chunk in request.stream:
                if chunk:
                    data = conn.send(h11.Data(data=chunk))
                    if data:
                        await self._write(data, seconds)
            end = conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError as exc:  # a header h11 refuses, a body longer than its length
            raise httpx.LocalProtocolError(str(exc)) from exc
        if end:
            await self._write(end, seconds)

    async def _write(self, data: bytes, seconds: float | None) -> None:
        try:
            await self.stream.write(data, seconds)
        except httpcore.WriteTimeout as exc:
            raise httpx.WriteTimeout(str(exc)) from exc
        except httpcore.WriteError as exc:
            raise httpx.WriteError(str(exc)) from exc

    async def next_event(self, seconds: float | None) -> Any:
        conn = self.h11
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx.RemoteProtocolError(str(exc)) from exc
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.stream.read(_READ_SIZE, seconds)
            except httpcore.ReadTimeout as exc:
                raise httpx.ReadTimeout(str(exc)) from exc
            except httpcore.ReadError as exc:
                raise httpx.ReadError(str(exc)) from exc
            if not data and conn.their_state is h11.SEND_RESPONSE:
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
            conn.receive_data(data)


class _Body(httpx.AsyncByteStream):
    """The response body; the connection goes back to the pool once the body was read to its end."""

    def __init__(self, transport: LeanTransport, conn: _Connection, timeout: float | None) -> None:
        self._transport = transport
        self._conn: _Connection | None = conn
        self._timeout = timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        try:
            while True:
                event = await conn.next_event(self._timeout)
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
        except BaseException:
            self._conn = None
            self._transport.discard(conn)
            raise
        self._conn = None
        self._transport.release(conn)

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:  # not read to its end: the rest of the body would be in the way
            self._transport.discard(conn)


class LeanTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 only, ``verify`` as httpx's default (system or SSL_CERT_FILE/SSL_CERT_DIR trust store)."""

    def __init__(
        self, *, max_connections: int = 100, max_keepalive: int = 20, keepalive_expiry: float = 5.0
    ) -> None:
        self._max_connections = max_connections
        self._max_keepalive = max_keepalive
        self._expiry = keepalive_expiry
        self._idle: dict[Origin, list[_Connection]] = {}
        self._idle_count = 0
        self._open = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{url.scheme}://'.")
        timeouts = request.extensions.get("timeout", {})
        origin: Origin = (url.raw_scheme, url.raw_host, url.port or (443 if url.scheme == "https" else 80))
        conn = await self._acquire(origin, timeouts)
        try:
            # As httpcore: a server may answer (413, 401) and close before taking the whole body; read
            # that answer, and when there is none the read fails with its own error.
            with contextlib.suppress(httpx.WriteError):
                await conn.send(request, timeouts.get("write"))
            while True:
                event = await conn.next_event(timeouts.get("read"))
                if isinstance(event, h11.Response):
                    break
                if isinstance(event, h11.ConnectionClosed):
                    raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        except BaseException:
            self.discard(conn)
            raise
        return httpx.Response(
            event.status_code,
            headers=event.headers.raw_items(),
            stream=_Body(self, conn, timeouts.get("read")),
            extensions={
                "http_version": b"HTTP/" + event.http_version,
                "reason_phrase": event.reason,
                "network_stream": conn.stream,
            },
        )

    def _take_idle(self, origin: Origin) -> _Connection | None:
        stack = self._idle.get(origin)
        now = time.monotonic()
        while stack:
            conn = stack.pop()
            self._idle_count -= 1
            if conn.reusable(now, self._expiry):
                return conn
            self.discard(conn)
        return None

    async def _acquire(self, origin: Origin, timeouts: dict[str, float | None]) -> _Connection:
        """An idle connection to ``origin``, else a new one, else wait (up to the pool timeout) for room."""
        loop = asyncio.get_running_loop()
        pool = timeouts.get("pool")
        deadline = None if pool is None else loop.time() + pool
        while True:
            conn = self._take_idle(origin)
            if conn is not None:
                return conn
            if self._open < self._max_connections:
                return await self._open_connection(origin, timeouts)
            if self._idle_count:  # an idle connection to another host makes room
                self._close_oldest_idle()
                continue
            await self._wait_for_room(None if deadline is None else deadline - loop.time())

    async def _open_connection(self, origin: Origin, timeouts: dict[str, float | None]) -> _Connection:
        self._open += 1
        scheme, host, port = origin
        try:
            tls = self._ssl_context() if scheme == b"https" else None
            name = host.decode("ascii")
            try:
                stream = await _BACKEND.connect_tcp(name, port, timeouts.get("connect"))
                if tls is not None:
                    stream = await stream.start_tls(tls, name, timeouts.get("connect"))
            except httpcore.ConnectTimeout as exc:
                raise httpx.ConnectTimeout(str(exc)) from exc
            except httpcore.ConnectError as exc:  # refused, unresolvable, an untrusted certificate
                raise httpx.ConnectError(str(exc)) from exc
            assert isinstance(stream, AsyncioStream)
        except BaseException:
            self._open -= 1
            self._wake_one()
            raise
        return _Connection(stream, origin)

    async def _wait_for_room(self, seconds: float | None) -> None:
        """Until a connection is given back or closed; ``PoolTimeout`` after ``seconds``."""
        if seconds is not None and seconds <= 0:
            raise httpx.PoolTimeout("no free connection in time")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(seconds):
                await waiter
        except TimeoutError as exc:
            raise httpx.PoolTimeout("no free connection in time") from exc
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._wake_one()  # it was this task's turn: pass it on
            raise
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:  # made on the first https request: loading the trust store takes ~10 ms
            self._ssl = httpx.create_ssl_context()
        return self._ssl

    def release(self, conn: _Connection) -> None:
        h = conn.h11
        if self._closed or h.our_state is not h11.DONE or h.their_state is not h11.DONE:
            self.discard(conn)
            return
        try:
            h.start_next_cycle()
        except h11.LocalProtocolError:
            self.discard(conn)
            return
        if self._idle_count >= self._max_keepalive:
            self._close_oldest_idle()
        conn.idle_since = time.monotonic()
        self._idle.setdefault(conn.origin, []).append(conn)
        self._idle_count += 1
        self._wake_one()

    def discard(self, conn: _Connection) -> None:
        """Close ``conn`` for good (not read to its end, broken, or no longer wanted)."""
        conn.stream.close()
        self._open -= 1
        self._wake_one()

    def _close_oldest_idle(self) -> None:
        oldest = min((s[0] for s in self._idle.values() if s), key=lambda c: c.idle_since)
        self._idle[oldest.origin].remove(oldest)
        self._idle_count -= 1
        self.discard(oldest)

    def _wake_one(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def aclose(self) -> None:
        self._closed = True
        for stack in self._idle.values():
            while stack:
                self.discard(stack.pop())
        self._idle_count = 0


def use_lean_transport(http: httpx.AsyncClient) -> None:
    """Serve ``http``'s direct requests with a ``LeanTransport`` and its proxies over asyncio sockets.

    httpx has no public way to replace only its default transport: ``transport=`` would also turn off
    the proxies it reads from the environment. So the client is built as usual and its default
    transport swapped, when it is the one httpx made; proxied requests keep httpx's proxy transports.
    """
    use_asyncio_sockets(http)
    if type(getattr(http, "_transport", None)) is httpx.AsyncHTTPTransport:
        http._transport = LeanTransport()


def lean_client(**options: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` (``options`` as its own) whose direct requests go through a
    ``LeanTransport``, and proxied ones (from the environment) through httpx's proxy transports.

    Without a proxy in the environment the transport is given to httpx, which then builds no default
    transport of its own to be swapped out: that one's TLS context (the trust store read from disk)
    was about 15 ms of every ``mcv`` start that talks to a service, even over plain http.
    """
    if not _environment_proxies():
        return httpx.AsyncClient(transport=LeanTransport(), **options)
    http = httpx.AsyncClient(**options)
    use_lean_transport(http)
    return http


def _environment_proxies() -> bool:
    """Whether the environment names a proxy httpx would use (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY)."""
    found = urllib.request.getproxies()
    return any(found.get(scheme) for scheme in ("http", "https", "all"))
