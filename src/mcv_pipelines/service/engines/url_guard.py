"""Which addresses a shared service may fetch from: the private-address guard of import/url.

A service that fetches any URL a caller names can be made to read what only it can reach: a cloud
metadata endpoint, a database admin page, another service on its loopback (server-side request
forgery). So a guarded service resolves the URL's host once and refuses it when ANY of its addresses
is private, loopback, link-local, multicast, reserved, unspecified or otherwise not public, for IPv4
and IPv6 alike (an IPv4 address carried inside an IPv6 one is judged as the IPv4 address). The
caller then connects to an address that was checked, never resolving the name again, so a name that
answers differently the second time (DNS rebinding) gets nowhere.

Example::

    guard = UrlGuard()
    guard.addresses("example.com", 443)       # ['93.184.215.14', ...], every one public
    guard.addresses("localhost", 80)          # raises ForbiddenAddress: localhost is loopback
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "ForbiddenAddress",
    "IPAddress",
    "IPNetwork",
    "NoNetworkGuard",
    "Resolver",
    "UnresolvedHost",
    "UrlGuard",
    "forbidden_kind",
    "parse_networks",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Sequence[str]]  # (host, port) -> addresses, as getaddrinfo gives them

# NAT64 translates these to the IPv4 address in their last 32 bits (RFC 6052), private ones included.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class ForbiddenAddress(Exception):
    """``host`` resolves to ``address``, of ``kind`` (e.g. 'loopback'), which the guard refuses.

    Tell the caller the host and the kind; the address itself is for the operator's log (a caller
    should not learn the layout of a private network by asking).
    """

    def __init__(self, host: str, kind: str, address: str, message: str | None = None) -> None:
        super().__init__(message or f"{host} resolves to a {kind} address")
        self.host = host
        self.kind = kind
        self.address = address


class UnresolvedHost(Exception):
    """``host`` has no address (or the resolver failed)."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"could not resolve {host}: {reason}")
        self.host = host
        self.reason = reason


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives for ``host``, in its order, each once."""
    found: list[str] = []
    for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        address = str(info[4][0])
        if address not in found:
            found.append(address)
    return found


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def forbidden_kind(address: IPAddress) -> str | None:
    """Why a guarded service must not connect to ``address`` ('loopback', 'private', ...), or None."""
    inner = _embedded_ipv4(address)
    if inner is not None:
        return forbidden_kind(inner)
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("site-local", isinstance(address, ipaddress.IPv6Address) and address.is_site_local),
    )
    for kind, hit in checks:
        if hit:
            return kind
    # What is left but still not global: shared address space (100.64.0.0/10, where some clouds keep
    # their metadata service), and the like.
    return None if address.is_global else "non-public"


def parse_networks(values: Sequence[str]) -> tuple[IPNetwork, ...]:
    """CIDR strings ("10.1.0.0/16", "fd00::/8", "192.0.2.7") as networks; ValueError names a bad one."""
    networks: list[IPNetwork] = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{value!r} is not an IP network (e.g. 10.1.0.0/16 or fd00::/8)") from None
    return tuple(networks)


@dataclass(frozen=True)
class UrlGuard:
    """Resolves hosts and refuses non-public addresses, except those in ``allowed_networks``.

    ``resolver`` is the system's by default; tests pass their own to make any name resolve anywhere.
    """

    resolver: Resolver = system_resolver
    allowed_networks: tuple[IPNetwork, ...] = ()

    def refusal(self, address: IPAddress) -> str | None:
        """The kind of address that makes ``address`` refused, or None when it may be fetched from."""
        candidates = [address]
        inner = _embedded_ipv4(address)
        if inner is not None:
            candidates.append(inner)
        for network in self.allowed_networks:
            if any(candidate.version == network.version and candidate in network for candidate in candidates):
                return None
        return forbidden_kind(address)

    def addresses(self, host: str, port: int) -> list[str]:
        """Every address of ``host``, each checked; connect only to these.

        Raises ForbiddenAddress when any address is refused (one bad address is enough: which one a
        connection would use is not ours to choose), UnresolvedHost when there is none.
        """
        try:
            literal: IPAddress | None = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            found = [host]
        else:
            try:
                found = list(self.resolver(host, port))
            except (OSError, UnicodeError) as exc:
                raise UnresolvedHost(host, str(exc) or type(exc).__name__) from exc
            if not found:
                raise UnresolvedHost(host, "no address")
        for text in found:
            try:
                address = ipaddress.ip_address(text)
            except ValueError as exc:
                raise UnresolvedHost(host, f"the resolver answered {text!r}, not an address") from exc
            kind = self.refusal(address)
            if kind is not None:
                raise ForbiddenAddress(host, kind, text)
        return found


@dataclass(frozen=True)
class NoNetworkGuard(UrlGuard):
    """Refuses every host, public ones too, without resolving it (no DNS query either).

    For a page this service made itself and that has nothing to fetch (Pandoc's self-contained html
    printed to PDF): whatever such a page asks for came from a hostile input, so it is refused.
    """

    def addresses(self, host: str, port: int) -> list[str]:
        del port
        raise ForbiddenAddress(host, "any", host, f"{host} is not fetched: this document fetches nothing")
