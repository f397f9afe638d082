"""The one pinned connection of the caller's storage kinds on HTTP (caller_storage/pinning.py, issue 49):
every address the guard checked for a name is tried in turn, a refused name gets no connection at
all, and a name's dot segments reach the server as they are. Azure's client, which once tried only the
first address, reads through it from Azurite."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from azure.storage.blob import BlobServiceClient

from azurite import ACCOUNT, KEY, Azurite
from http_stub import served
from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UrlGuard, parse_networks
from mcv_pipelines.service.work.caller_storage.azure_blob import AzureBlobStore
from mcv_pipelines.service.work.caller_storage.contract import StoreSettings
from mcv_pipelines.service.work.caller_storage.pinning import Addresses, session


class Origin:
    """What a loopback HTTP server answering every GET with ``pinned`` saw: ``seen`` holds (path,
    Host); ``port`` is its port."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.port = 0

    def handler(self) -> type[BaseHTTPRequestHandler]:
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def do_GET(self) -> None:
                origin.seen.append((self.path, self.headers["host"]))
                self.send_response(200)
                self.send_header("content-length", "6")
                self.end_headers()
                self.wfile.write(b"pinned")

        return Handler


@pytest.fixture
def origin() -> Iterator[Origin]:
    recorded = Origin()
    with served(recorded.handler()) as server:
        recorded.port = server.port
        yield recorded


def guard(table: dict[str, list[str]], asked: list[str] | None = None, allow: bool = True) -> UrlGuard:
    def resolve(host: str, port: int) -> list[str]:
        if asked is not None:
            asked.append(host)
        return table[host]

    return UrlGuard(resolver=resolve, allowed_networks=parse_networks(["127.0.0.0/8"] if allow else []))


def test_every_checked_address_is_tried_in_turn_and_the_name_resolved_once(origin: Origin) -> None:
    asked: list[str] = []
    # Nothing listens on 127.0.0.2 at the origin's port: refused there, the next address answers.
    pinned = session(Addresses(guard({"two.example": ["127.0.0.2", "127.0.0.1"]}, asked)), 1)
    try:
        for _ in range(2):
            answer = pinned.get(f"http://two.example:{origin.port}/a.txt", timeout=10)
            assert (answer.status_code, answer.content) == (200, b"pinned")
    finally:
        pinned.close()
    assert origin.seen == [("/a.txt", f"two.example:{origin.port}")] * 2  # the name, not the address
    assert asked == ["two.example"]


def test_a_refused_name_gets_no_connection(origin: Origin) -> None:
    pinned = session(Addresses(guard({"inside.example": ["127.0.0.1"]}, allow=False)), 1)
    try:
        with pytest.raises(ForbiddenAddress, match=r"inside\.example"):
            pinned.get(f"http://inside.example:{origin.port}/a.txt", timeout=10)
    finally:
        pinned.close()
    assert origin.seen == []


def test_dot_segments_of_a_name_are_sent_as_they_are(origin: Origin) -> None:
    pinned = session(Addresses(None), 1)
    try:
        pinned.get(f"http://127.0.0.1:{origin.port}/box/in/../kept.txt", timeout=10)
        pinned.get(f"http://127.0.0.1:{origin.port}/box/./here.txt", timeout=10)
    finally:
        pinned.close()
    assert [path for path, _ in origin.seen] == ["/box/in/../kept.txt", "/box/./here.txt"]


def test_azure_reads_and_writes_through_the_second_address_of_its_endpoint(azurite: Azurite) -> None:
    name = f"c{secrets.token_hex(6)}"
    BlobServiceClient.from_connection_string(azurite.connection_string).create_container(name)
    settings = StoreSettings(
        # Azurite takes the account from a name of this form (a path-style URL wants an address).
        guard=guard({f"{ACCOUNT}.blob.localhost": ["127.0.0.2", "127.0.0.1"]}),
        retry_for=0.0,
        azure_blob_endpoint=f"http://{{account}}.blob.localhost:{azurite.port}",
    )
    store = AzureBlobStore(
        {"storage_account": ACCOUNT, "storage_access_key": KEY, "container": name}, settings
    )
    try:
        writer = store.writer("a.txt", "a.txt")
        writer.write(b"second address")
        writer.commit()
        assert b"".join(store.read("a.txt")) == b"second address"
        assert [entry.key for entry in store.list("")] == ["a.txt"]
    finally:
        store.close()
