"""The private-address guard judges addresses, not names: every address a host resolves to counts.

No test here connects anywhere: resolvers are injected, and only the judgement is asserted.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

import pytest

from mcv_pipelines.service.engines.url_guard import (
    ForbiddenAddress,
    UnresolvedHost,
    UrlGuard,
    forbidden_kind,
    parse_networks,
)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),  # the cloud metadata endpoint
        ("0.0.0.0", "unspecified"),  # noqa: S104 - an address judged, nothing bound
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.100.100.200", "non-public"),  # shared address space, a metadata endpoint of some clouds
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("ff02::1", "multicast"),
        ("fec0::1", "site-local"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::1", "loopback"),  # 6to4 of 127.0.0.1
        ("2002:c0a8:101::1", "private"),  # 6to4 of 192.168.1.1
    ],
)
def test_non_public_addresses_are_refused_with_their_kind(address: str, kind: str) -> None:
    assert forbidden_kind(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]
)
def test_public_addresses_pass(address: str) -> None:
    assert forbidden_kind(ipaddress.ip_address(address)) is None


def resolver(table: dict[str, Sequence[str]], calls: list[str] | None = None) -> UrlGuard:
    def resolve(host: str, port: int) -> Sequence[str]:
        if calls is not None:
            calls.append(host)
        if host not in table:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return table[host]

    return UrlGuard(resolver=resolve)


def test_a_name_with_only_public_addresses_gives_them_all_in_order() -> None:
    guard = resolver({"files.example.com": ["93.184.216.34", "2606:4700:4700::1111"]})
    assert guard.addresses("files.example.com", 443) == ["93.184.216.34", "2606:4700:4700::1111"]


def test_one_private_address_among_public_ones_refuses_the_name() -> None:
    # Which address a connection would use is not ours to choose: one bad one is enough.
    guard = resolver({"mixed.example.com": ["93.184.216.34", "10.0.0.7"]})
    with pytest.raises(ForbiddenAddress) as refused:
        guard.addresses("mixed.example.com", 80)
    assert (refused.value.host, refused.value.kind, refused.value.address) == (
        "mixed.example.com",
        "private",
        "10.0.0.7",
    )
    assert str(refused.value) == "mixed.example.com resolves to a private address"  # no address shown


def test_a_public_looking_name_that_resolves_to_loopback_is_refused() -> None:
    guard = resolver({"cdn.example.com": ["127.0.0.1"]})
    with pytest.raises(ForbiddenAddress, match=r"cdn\.example\.com resolves to a loopback address"):
        guard.addresses("cdn.example.com", 80)


def test_an_address_literal_is_judged_without_asking_the_resolver() -> None:
    calls: list[str] = []
    guard = resolver({}, calls)
    with pytest.raises(ForbiddenAddress, match="loopback"):
        guard.addresses("::1", 80)
    assert guard.addresses("8.8.8.8", 80) == ["8.8.8.8"]
    assert calls == []


def test_a_name_that_does_not_resolve_is_an_unresolved_host() -> None:
    with pytest.raises(UnresolvedHost, match=r"could not resolve nowhere\.invalid: .*not known"):
        resolver({}).addresses("nowhere.invalid", 80)
    with pytest.raises(UnresolvedHost, match="no address"):
        resolver({"empty.example": []}).addresses("empty.example", 80)
    with pytest.raises(UnresolvedHost, match="not an address"):
        resolver({"odd.example": ["not-an-ip"]}).addresses("odd.example", 80)


def test_allowed_networks_let_a_chosen_private_range_through_and_nothing_else() -> None:
    table = {"artifacts.internal": ["10.1.2.3"], "db.internal": ["10.9.0.5"], "mapped": ["::ffff:10.1.2.4"]}
    guard = UrlGuard(
        resolver=lambda host, port: table[host], allowed_networks=parse_networks(["10.1.0.0/16"])
    )
    assert guard.addresses("artifacts.internal", 80) == ["10.1.2.3"]
    assert guard.addresses("mapped", 80) == ["::ffff:10.1.2.4"]  # the same address, written as IPv6
    with pytest.raises(ForbiddenAddress, match="private"):
        guard.addresses("db.internal", 80)
    with pytest.raises(ForbiddenAddress, match="loopback"):
        guard.addresses("127.0.0.1", 80)


def test_parse_networks_names_a_bad_value() -> None:
    assert parse_networks(["192.0.2.7", "fd00::/8"]) == (
        ipaddress.ip_network("192.0.2.7/32"),
        ipaddress.ip_network("fd00::/8"),
    )
    with pytest.raises(ValueError, match=r"'10\.1/99' is not an IP network"):
        parse_networks(["10.1/99"])
