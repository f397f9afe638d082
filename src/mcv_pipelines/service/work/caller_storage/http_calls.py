"""HTTP calls to a caller's store on httpx: every request to a guarded address, transient faults retried.

``GuardedTransport`` checks the host of every request it sends with the service's UrlGuard (a served
instance) and connects to an address it checked, the Host header and TLS name staying the host's, as
import/url does (url_fetch.py): an address a token answer or catalog names is checked like the one the
caller typed. Clients read nothing of the process's environment (no proxy, CA bundle or netrc) and
follow no redirect. ``retried`` runs one call again on connection faults, timeouts and 5xx answers
for up to ``retry_for`` seconds, with growing waits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import httpx

from mcv_pipelines.redact import redact
from mcv_pipelines.service.engines.url_guard import UrlGuard

__all__ = ["TRANSIENT", "GuardedTransport", "Unreachable", "client", "retried"]

log = logging.getLogger(__name__)

_DEFAULT_PORTS = {"http": 80, "https": 443}
_BUSY = frozenset({429, 500, 502, 503, 504})
TRANSIENT = (httpx.TransportError,)  # no connection, a timeout, a cut answer
_FIRST_WAIT, _LONGEST_WAIT = 0.2, 5.0


class Unreachable(Exception):
    """The host did not answer in time (after the retries): ``cause`` says how."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause) or type(cause).__name__)
        self.cause = cause


class GuardedTransport(httpx.BaseTransport):
    """Sends each request to an address ``guard`` checked for its host (any address without a guard).

    The guard's ForbiddenAddress / UnresolvedHost come out of ``client.send`` as they are.
    """

    def __init__(self, guard: UrlGuard | None, pool: int) -> None:
        self._guard = guard
        # (host, port) -> its checked addresses, for the task's length: a prefix of a thousand objects
        # resolves its host once, and each request still goes to an address that was checked.
        self._checked: dict[tuple[str, int], list[str]] = {}
        self._lock = threading.Lock()
        self._inner = httpx.HTTPTransport(limits=httpx.Limits(max_connections=max(pool, 4)), retries=0)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self._guard is None:
            return self._inner.handle_request(request)
        url = request.url
        host = url.host
        addresses = self._addresses(host, url.port or _DEFAULT_PORTS.get(url.scheme, 443))
        request.headers["Host"] = url.netloc.decode("ascii")
        if url.scheme == "https":
            request.extensions = {**request.extensions, "sni_hostname": host}
        failure: httpx.ConnectError | None = None
        for address in addresses:  # all were checked; the next one only when the last did not connect
            request.url = url.copy_with(host=address)
            try:
                return self._inner.handle_request(request)
            except httpx.ConnectError as exc:
                failure = exc
        assert failure is not None  # the guard raises rather than give no address
        raise failure

    def _addresses(self, host: str, port: int) -> list[str]:
        assert self._guard is not None
        with self._lock:
            known = self._checked.get((host, port))
        if known is None:
            known = self._guard.addresses(host, port)
            with self._lock:
                self._checked[(host, port)] = known
        return known

    def close(self) -> None:
        self._inner.close()


def client(guard: UrlGuard | None, pool: int, timeout: float = 60.0) -> httpx.Client:
    """A client for one task's calls: guarded, no environment, no redirects followed."""
    return httpx.Client(
        transport=GuardedTransport(guard, pool),
        timeout=httpx.Timeout(timeout, connect=10.0),
        trust_env=False,
        follow_redirects=False,
    )


def retried(
    what: str, call: Callable[[], httpx.Response], retry_for: float, hide: Callable[[str], str]
) -> httpx.Response:
    """``call()``, again while it fails transiently and ``retry_for`` seconds allow. Returns the last
    answer (a 5xx one too, once time is up); raises Unreachable when no answer came at all."""
    deadline = time.monotonic() + retry_for
    wait = _FIRST_WAIT
    while True:
        try:
            response = call()
        except TRANSIENT as exc:
            if time.monotonic() + wait >= deadline:
                raise Unreachable(exc) from None
            log.warning(
                "%s", hide(redact(f"could not {what} ({type(exc).__name__}); trying again in {wait:.1f} s"))
            )
        else:
            if response.status_code not in _BUSY or time.monotonic() + wait >= deadline:
                return response
            response.close()
            log.warning(
                "%s", hide(redact(f"{what}: answered {response.status_code}; trying again in {wait:.1f} s"))
            )
        time.sleep(wait)
        wait = min(wait * 2, _LONGEST_WAIT)
