"""GET a caller's URL for import/url, following redirects ourselves so that every hop can be guarded.

With a ``UrlGuard`` each hop's host is resolved once and checked (url_guard), and the request goes
to one of the checked addresses: the URL's host is replaced by the address, while the Host header
and, for https, the TLS server name (SNI and certificate check) stay the name. Without a guard (the
embedded, one-user default) hops are fetched as they are, the way any HTTP client would.

Example::

    with open_url("https://example.com/a.png", {}, UrlGuard()) as response:
        for chunk in response.iter_bytes():
            ...
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Iterator, Mapping

import httpx

from mcv_pipelines.service.engines.url_guard import UrlGuard

__all__ = ["MAX_REDIRECTS", "BadRedirect", "Redirected", "open_url"]

MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Sent only to the origin they were meant for (httpx and browsers do the same).
_ORIGIN_ONLY = frozenset({"authorization", "cookie", "proxy-authorization"})


class BadRedirect(Exception):
    """A redirect that is not followed: too many, or to something other than http(s)."""


class Redirected(Exception):
    """Wraps a guard's refusal on a redirect hop, naming the host that redirected there."""

    def __init__(self, origin: str, refusal: Exception) -> None:
        super().__init__(f"redirected from {origin}: {refusal}")
        self.origin = origin
        self.refusal = refusal


@contextlib.contextmanager
def open_url(
    url: str,
    headers: Mapping[str, str],
    guard: UrlGuard | None,
    *,
    timeout: float = 60.0,
    verify: ssl.SSLContext | bool = True,
) -> Iterator[httpx.Response]:
    """The streamed answer to GET ``url`` after at most MAX_REDIRECTS redirects.

    Raises the guard's ForbiddenAddress / UnresolvedHost for the first URL, ``Redirected`` wrapping
    them for a later hop, BadRedirect, or httpx.HTTPError.
    """
    current = previous = httpx.URL(url)
    sent = dict(headers)
    with contextlib.ExitStack() as stack:
        for hop in range(MAX_REDIRECTS + 1):
            # A fresh client per hop: a pooled connection to one address must not carry another
            # host's request (its TLS session was checked for the first host's name).
            client = stack.enter_context(_client(guard, timeout, verify))
            try:
                response = _get(client, current, sent, guard)
            except Exception as exc:
                if hop and not isinstance(exc, httpx.HTTPError):
                    raise Redirected(_host(previous), exc) from exc
                raise
            location = response.headers.get("location")
            if response.status_code not in _REDIRECTS or location is None:
                stack.callback(response.close)
                yield response
                return
            response.close()
            previous, current = current, _redirect_target(current, location)
            if not _same_origin(previous, current):
                sent = {k: v for k, v in sent.items() if k.lower() not in _ORIGIN_ONLY}
        raise BadRedirect(f"more than {MAX_REDIRECTS} redirects")


def _client(guard: UrlGuard | None, timeout: float, verify: ssl.SSLContext | bool) -> httpx.Client:
    if guard is None:
        return httpx.Client(timeout=timeout, verify=verify)
    # An explicit transport: proxies from the environment would resolve the name themselves and
    # make the check meaningless, so a guarded fetch never goes through one.
    return httpx.Client(timeout=timeout, transport=httpx.HTTPTransport(verify=verify))


def _get(
    client: httpx.Client, url: httpx.URL, headers: Mapping[str, str], guard: UrlGuard | None
) -> httpx.Response:
    if guard is None:
        return client.send(client.build_request("GET", url, headers=headers), stream=True)
    host = url.raw_host.decode("ascii")
    addresses = guard.addresses(host, url.port or _DEFAULT_PORTS[url.scheme])
    pinned_headers = {**headers, "Host": url.netloc.decode("ascii")}
    extensions = {"sni_hostname": host} if url.scheme == "https" else {}
    failure: httpx.ConnectError | None = None
    for address in addresses:  # all were checked; the next one only when the last did not connect
        request = client.build_request(
            "GET", url.copy_with(host=address), headers=pinned_headers, extensions=extensions
        )
        try:
            return client.send(request, stream=True)
        except httpx.ConnectError as exc:
            failure = exc
    assert failure is not None  # addresses is never empty: the guard raises instead
    raise failure


def _redirect_target(current: httpx.URL, location: str) -> httpx.URL:
    try:
        target = current.join(location)
    except httpx.InvalidURL as exc:
        raise BadRedirect(f"{_host(current)} redirected to an invalid URL") from exc
    if target.scheme not in _DEFAULT_PORTS or not target.host:
        raise BadRedirect(f"{_host(current)} redirected to a {target.scheme or 'relative'} URL")
    return target


def _same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    return (a.scheme, a.host, a.port or _DEFAULT_PORTS[a.scheme]) == (
        b.scheme,
        b.host,
        b.port or _DEFAULT_PORTS[b.scheme],
    )


def _host(url: httpx.URL) -> str:
    """The host alone: never the path or query, which may carry a signature or token."""
    return url.host
