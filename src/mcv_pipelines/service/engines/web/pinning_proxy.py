"""A forward proxy that connects Chromium only to the address the URL guard approved (issue 24).

The request guard (request_guard.py) resolves a request's host and approves it, but Chromium would
then resolve the name again itself: a name answering a public address to the guard and 127.0.0.1 to
the browser (DNS rebinding) would reach loopback. So a guarded task's browser context sends its http
and https traffic here. For each ``CONNECT host:port`` (https, tunnelled) and each absolute-URI
request (``GET http://host/...``, websocket upgrades included) the proxy resolves the name once,
checks every address with the task's ``UrlGuard``, and dials exactly an address it checked. A
refusal answers 403 (an unresolvable name or an unreachable address 502) and the page goes on
without that request, as when the request guard fails it.

Bounded: at most ``max_tunnels`` connections at once (more get 503), a deadline on the request
head and on dialling, an idle timeout on relayed connections; every socket is closed when its
connection ends, and all of them when the proxy closes.

Example::

    with PinningProxy(UrlGuard()) as proxy:
        flags = f"--proxy-server=http://127.0.0.1:{proxy.port}"
"""

from __future__ import annotations

import contextlib
import ipaddress
import select
import socket
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost, UrlGuard

__all__ = ["PinningProxy", "Target", "parse_target"]

MAX_HEAD_BYTES = 64 * 1024
_HOP_BY_HOP = frozenset({b"proxy-connection", b"proxy-authorization", b"keep-alive", b"connection"})


@dataclass(frozen=True, slots=True)
class Target:
    """Where one proxied request goes: ``host``:``port``, and for a plain request its first bytes."""

    host: str
    port: int
    tunnel: bool  # CONNECT: answer 200 and relay; else forward ``head`` as an origin-form request
    head: bytes = b""


class BadRequest(Exception):
    """The browser sent something this proxy does not forward."""


def parse_target(head: bytes) -> Target:
    """The target of a request head (request line and headers, up to the blank line)."""
    line, _, rest = head.partition(b"\r\n")
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        raise BadRequest("not an HTTP/1 request line")
    method, target, version = parts
    text = target.decode("ascii", "replace")
    if method == b"CONNECT":
        host, port = _host_port(text)
        return Target(host, port, True)
    url = urllib.parse.urlsplit(text)
    if url.scheme not in ("http", "ws") or not url.hostname:
        raise BadRequest("only absolute http:// requests are forwarded")
    try:
        port = url.port or 80
    except ValueError:
        raise BadRequest("bad port") from None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    fields = rest.split(b"\r\n") if rest else []
    kept = [field for field in fields if field.split(b":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    # One request per connection: a browser reusing it for another host would reach the first
    # host's address. A websocket upgrade keeps its Connection header (the relay is its socket).
    upgrade = any(line.lower().startswith(b"connection:") and b"upgrade" in line.lower() for line in fields)
    kept.append(b"Connection: Upgrade" if upgrade else b"Connection: close")
    forwarded = b" ".join((method, path.encode("ascii", "replace"), version)) + b"\r\n" + b"\r\n".join(kept)
    return Target(url.hostname, port, False, forwarded)


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadRequest("CONNECT needs host:port")
    return host, int(port)


class PinningProxy:
    """Listens on 127.0.0.1 (a free port) and forwards to guard-approved addresses only."""

    def __init__(
        self,
        guard: UrlGuard,
        *,
        max_tunnels: int = 64,
        head_timeout: float = 10.0,
        connect_timeout: float = 10.0,
        idle_timeout: float = 60.0,
        on_refused: Callable[[str, int, str], None] | None = None,
    ) -> None:
        self.guard = guard
        self.on_refused = on_refused  # (host, port, why), from the connection's thread
        self.head_timeout = head_timeout
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.refused = 0  # requests answered 403 (tests and logs read it)
        self._slots = threading.BoundedSemaphore(max_tunnels)
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._closed = False
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True, name=f"pinning-proxy-{self.port}").start()

    def __enter__(self) -> PinningProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        """Stop listening and cut every connection still open."""
        with self._lock:
            self._closed = True
            still = list(self._open)
        with contextlib.suppress(OSError):
            self._listener.close()
        for sock in still:
            _shut(sock)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                with contextlib.suppress(OSError):
                    client.settimeout(1)
                    client.sendall(_answer(503, "too many connections through the proxy"))
                _shut(client)
                continue
            if not self._track(client):
                self._slots.release()
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _track(self, sock: socket.socket) -> bool:
        with self._lock:
            if self._closed:
                _shut(sock)
                return False
            self._open.add(sock)
            return True

    def _untrack(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)
        _shut(sock)

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(self.head_timeout)
            head, extra = _read_head(client)
            try:
                target = parse_target(head)
                upstream = self._dial(target.host, target.port)
            except BadRequest as exc:
                client.sendall(_answer(400, str(exc)))
                return
            except ForbiddenAddress as exc:
                with self._lock:
                    self.refused += 1
                if self.on_refused is not None:
                    self.on_refused(target.host, target.port, str(exc))
                client.sendall(_answer(403, f"{exc} (refused by the service's URL guard)"))
                return
            except (UnresolvedHost, OSError) as exc:
                client.sendall(_answer(502, f"{target.host} does not answer: {type(exc).__name__}"))
                return
            if not self._track(upstream):
                return
            if target.tunnel:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if extra:
                    upstream.sendall(extra)
            else:
                upstream.sendall(target.head + b"\r\n\r\n" + extra)
            self._relay(client, upstream)
        except (OSError, BadRequest):
            pass  # the browser went away or sent garbage: nothing to answer
        finally:
            if upstream is not None:
                self._untrack(upstream)
            self._untrack(client)
            self._slots.release()

    def _dial(self, host: str, port: int) -> socket.socket:
        """A connection to one of the addresses the guard approved for ``host`` (never the name)."""
        failure: OSError | None = None
        for address in self.guard.addresses(host, port):
            family = socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(self.connect_timeout)
                sock.connect((address, port))
                return sock
            except OSError as exc:
                sock.close()
                failure = exc
        raise failure or OSError("no address to connect to")

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        """Copy bytes both ways until one side closes or both stay quiet for ``idle_timeout``."""
        peers = {client: upstream, upstream: client}
        for sock in peers:
            # Each chunk goes on at once: with Nagle's algorithm a second small write (a response's
            # body after its head) waits for the browser's delayed ACK, some 40 ms a request.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)
        while True:
            ready, _, _ = select.select(list(peers), [], [], self.idle_timeout)
            if not ready:
                return
            for sock in ready:
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    return
                other = peers[sock]
                other.setblocking(True)
                other.settimeout(self.idle_timeout)
                try:
                    other.sendall(data)
                finally:
                    other.setblocking(False)


def _read_head(sock: socket.socket) -> tuple[bytes, bytes]:
    """The request head (without its blank line) and whatever bytes followed it."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > MAX_HEAD_BYTES:
            raise BadRequest("request head too long")
        chunk = sock.recv(8192)
        if not chunk:
            raise BadRequest("connection closed before a request")
        buffer += chunk
    head, _, extra = buffer.partition(b"\r\n\r\n")
    return head, extra


def _answer(status: int, reason: str) -> bytes:
    titles = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable"}
    body = reason.encode("utf-8", "replace")
    return (
        f"HTTP/1.1 {status} {titles[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
