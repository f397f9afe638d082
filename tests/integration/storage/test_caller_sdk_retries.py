"""The vendors' clients retry nothing themselves (issue 49): with caller_storage_retry at 0, a store
that answers every request 503 is asked exactly once by each kind on HTTP, so the service's one
retry policy is never multiplied by an SDK's (botocore once made three tries under each of ours)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from fake_gcs import ServiceAccount, TokenEndpoint
from http_stub import served
from keystone_stub import REGION, KeystoneStub
from loopback_listener import Tripwire
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage.azure_blob import AzureBlobStore
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, StoreSettings
from mcv_pipelines.service.work.caller_storage.gcs import GcsStore
from mcv_pipelines.service.work.caller_storage.s3 import S3Store
from mcv_pipelines.service.work.caller_storage.swift import SwiftStore

KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


class Busy:
    """What a loopback server answering every request 503 was asked (``paths``), and its ``url``."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.url = ""

    def handler(self) -> type[BaseHTTPRequestHandler]:
        busy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def _busy(self) -> None:
                busy.paths.append(self.path)
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = b"<Error><Code>ServerBusy</Code><Message>busy</Message></Error>"
                self.send_response(503)
                self.send_header("content-type", "application/xml")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_HEAD = _busy

        return Handler


@pytest.fixture
def busy() -> Iterator[Busy]:
    recorded = Busy()
    with served(recorded.handler()) as server:
        recorded.url = server.url
        yield recorded


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def read_once(opened: Callable[[], CallerStore]) -> TaskFailed:
    store = opened()
    try:
        with pytest.raises(TaskFailed) as failed:
            b"".join(store.read("a.txt"))
    finally:
        store.close()
    return failed.value


def test_s3_asks_a_busy_store_once(busy: Busy) -> None:
    payload = {"bucket": "b", "region": "us-east-1", "endpoint": busy.url, "access_key_id": "AKIDBUSY",
               "secret_access_key": "not-a-real-secret"}  # fmt: skip
    read_once(lambda: S3Store(payload, StoreSettings(retry_for=0.0)))
    assert busy.paths == ["/b/a.txt"]


def test_azure_asks_a_busy_store_once(busy: Busy) -> None:
    payload = {"storage_account": "devstoreaccount1", "storage_access_key": KEY, "container": "box"}
    settings = StoreSettings(retry_for=0.0, azure_blob_endpoint=f"{busy.url}/{{account}}")
    read_once(lambda: AzureBlobStore(payload, settings))
    assert [path.split("?")[0] for path in busy.paths] == ["/devstoreaccount1/box/a.txt"]


def test_gcs_asks_a_busy_store_once(busy: Busy) -> None:
    account = ServiceAccount()
    payload = {"bucket": "b", "client_email": account.email, "private_key": account.pem}
    with TokenEndpoint(account) as tokens:
        settings = StoreSettings(retry_for=0.0, gcs_endpoint=busy.url, gcs_token_uri=tokens.url)
        read_once(lambda: GcsStore(payload, settings))
    assert [path.split("?")[0] for path in busy.paths] == ["/storage/v1/b/b/o/a.txt"]


def test_swift_asks_a_busy_store_once(busy: Busy) -> None:
    with KeystoneStub(lambda project: f"{busy.url}/v1/AUTH_{project}", closed_port()) as keystone:
        payload = {"auth_url": keystone.url, "username": keystone.username, "password": keystone.password,
                   "region": REGION, "container": "box"}  # fmt: skip
        read_once(lambda: SwiftStore(payload, StoreSettings(retry_for=0.0)))
    assert busy.paths == ["/v1/AUTH_demo/box/a.txt"]


def test_no_kind_takes_a_proxy_from_the_environment(busy: Busy, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's proxy variables point at a tripwire: every kind still goes straight to its store
    (azure-core, requests, keystoneauth and botocore would each read them by default)."""
    account = ServiceAccount()
    with Tripwire() as proxy, TokenEndpoint(account) as tokens:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        s3 = {"bucket": "b", "region": "us-east-1", "endpoint": busy.url, "access_key_id": "AKIDBUSY",
              "secret_access_key": "not-a-real-secret"}  # fmt: skip
        read_once(lambda: S3Store(s3, StoreSettings(retry_for=0.0)))
        azure = {"storage_account": "devstoreaccount1", "storage_access_key": KEY, "container": "box"}
        endpoint = StoreSettings(retry_for=0.0, azure_blob_endpoint=f"{busy.url}/{{account}}")
        read_once(lambda: AzureBlobStore(azure, endpoint))
        gcs = {"bucket": "b", "client_email": account.email, "private_key": account.pem}
        settings = StoreSettings(retry_for=0.0, gcs_endpoint=busy.url, gcs_token_uri=tokens.url)
        read_once(lambda: GcsStore(gcs, settings))
        with KeystoneStub(lambda project: f"{busy.url}/v1/AUTH_{project}", closed_port()) as keystone:
            swift = {"auth_url": keystone.url, "username": keystone.username, "password": keystone.password,
                     "region": REGION, "container": "box"}  # fmt: skip
            read_once(lambda: SwiftStore(swift, StoreSettings(retry_for=0.0)))
        assert proxy.hits == []
    assert len(busy.paths) == 4
