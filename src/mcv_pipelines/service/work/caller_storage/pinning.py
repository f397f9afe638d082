"""Connections only to the addresses the guard checked, for every kind of caller's storage on HTTP.

``Addresses`` asks the service's UrlGuard once per (host, port) for a task and keeps its answer: a
prefix of a thousand objects resolves its host once, and every connection goes to an address that was
checked (a name answering a public address to the guard and 127.0.0.1 to the connect, DNS rebinding,
gets nowhere). The connection classes of ``pinned_pools`` open their socket to those addresses in
turn, the next only when one does not connect; only the socket's address changes: the URL, the Host
header, the TLS name (SNI) and the certificate check stay the name's.

Every vendor client here rides on urllib3: botocore with its own pools (s3_client.py), and google-auth,
azure-core, keystoneauth1 and swiftclient on a requests Session, which ``session`` makes: its one
adapter checks each request's host before any socket (the guard's ForbiddenAddress and UnresolvedHost
come out of the call as they are), its pools are pinned, urllib3 retries nothing (retry.py does), and
it reads nothing of the environment (no proxy, CA bundle or netrc) and follows no redirect. A path's
"." and ".." segments are sent as they are: legal in an object's name, urllib3 would remove them (and
name another object, or container).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.connection import create_connection

from mcv_pipelines.service.engines.url_guard import UrlGuard

__all__ = ["TIMEOUT", "Addresses", "PinnedSession", "chunks", "pinned_pools", "session"]

TIMEOUT = (10.0, 60.0)  # seconds to connect, and to wait for each read: every kind's calls on a session


class Addresses:
    """(host, port) -> the addresses to connect to: the guard's checked ones, asked once per task;
    without a guard (the embedded default) the name itself, resolved by the connect as usual."""

    def __init__(self, guard: UrlGuard | None) -> None:
        self.guard = guard
        self._checked: dict[tuple[str, int], list[str]] = {}
        self._lock = threading.Lock()

    def __call__(self, host: str, port: int) -> list[str]:
        if self.guard is None:
            return [host]
        with self._lock:
            known = self._checked.get((host, port))
        if known is None:
            known = list(self.guard.addresses(host, port))
            with self._lock:
                self._checked[(host, port)] = known
        return known

    def check(self, url: str) -> None:
        """Raises the guard's ForbiddenAddress or UnresolvedHost for a URL it refuses."""
        parts = urlsplit(url)
        self(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))


def pinned_pools(
    http: type[HTTPConnectionPool], https: type[HTTPSConnectionPool], addresses: Addresses
) -> dict[str, type[Any]]:
    """urllib3's ``pool_classes_by_scheme`` whose connections go to ``addresses`` only: subclasses
    of ``http`` and ``https`` (urllib3's own, or botocore's) with their connection class pinned."""
    return {"http": _pinned(http, addresses), "https": _pinned(https, addresses)}


def _pinned(pool: type[HTTPConnectionPool], addresses: Addresses) -> type[Any]:
    connection: type[Any] = pool.ConnectionCls
    default_port = 443 if issubclass(connection, HTTPSConnection) else 80

    class Pinned(connection):  # type: ignore[misc]  # a class held in a variable
        def _new_conn(self) -> socket.socket:
            port = int(self.port or default_port)
            try:
                found = addresses(str(self.host).strip("[]").lower(), port)
            except Exception as exc:  # the guard's refusal: no socket at all
                raise NewConnectionError(self, f"Refused to connect to {self.host}: {exc}") from None
            failure: OSError | None = None
            for address in found:  # each one checked; the next only when the last did not connect
                try:
                    return create_connection(
                        (address, port), self.timeout, self.source_address, self.socket_options
                    )
                except TimeoutError as exc:
                    raise ConnectTimeoutError(
                        self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
                    ) from exc
                except OSError as exc:
                    failure = exc
            raise NewConnectionError(self, f"Failed to establish a new connection: {failure or 'no address'}")

    return type(f"Pinned{pool.__name__}", (pool,), {"ConnectionCls": Pinned})


class _PinnedAdapter(HTTPAdapter):
    def __init__(self, addresses: Addresses, pool: int) -> None:
        self._addresses = addresses
        super().__init__(pool_connections=4, pool_maxsize=max(pool, 4) * 2, max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = pinned_pools(
            HTTPConnectionPool, HTTPSConnectionPool, self._addresses
        )

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        self._addresses.check(str(request.url))  # before any socket, redirects' targets too
        return super().send(request, *args, **kwargs)


class PinnedSession(requests.Session):
    """A Session whose URLs keep their dot segments: encoded before requests parses the URL (which
    removes literal ones), they are decoded back by its requoting and sent as the name has them."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        parts = urlsplit(url.decode() if isinstance(url, bytes) else url)
        path = "/".join("%2E" * len(p) if p in (".", "..") else p for p in parts.path.split("/"))
        return super().request(method, urlunsplit(parts._replace(path=path)), *args, **kwargs)


def _no_redirect(response: requests.Response) -> None:
    return None


def session(addresses: Addresses, pool: int) -> PinnedSession:
    """A Session that connects only through ``addresses``, with nothing of the environment and no
    redirect followed (google-auth, azure-core, keystoneauth and swiftclient are each given one)."""
    made = PinnedSession()
    made.trust_env = False  # no HTTP(S)_PROXY (it would resolve names past the guard), CA variable, netrc
    made.proxies = {}
    adapter = _PinnedAdapter(addresses, pool)
    made.mount("http://", adapter)
    made.mount("https://", adapter)
    made.get_redirect_target = _no_redirect  # type: ignore[method-assign,assignment]  # a 3xx is an answer
    return made


def chunks(response: requests.Response, size: int) -> Iterator[bytes]:
    """A streamed answer's bytes as stored (no content decoding), the answer closed at the end."""
    try:
        yield from response.raw.stream(size, decode_content=False)
    finally:
        response.close()
