"""The caller's S3 client on a served instance (caller_storage/s3.py): its sockets go to the address
the guard checked while TLS stays the name's (SNI and the certificate check), over https as over http.
Loopback servers only; the client is trusted with the test's own certificate, its one change here."""

from __future__ import annotations

import ssl
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from origins import Origin

from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage.contract import StoreSettings
from mcv_pipelines.service.work.caller_storage.s3 import S3Store


def store(endpoint: str, table: dict[str, Sequence[str]], trust: Path | None = None) -> S3Store:
    guard = UrlGuard(resolver=lambda host, _: table[host], allowed_networks=parse_networks(["127.0.0.2/32"]))
    payload: dict[str, Any] = {
        "bucket": "b",
        "region": "us-east-1",
        "endpoint": endpoint,
        "access_key_id": "AKIDPINNING",
        "secret_access_key": "not-a-real-secret",
    }
    opened = S3Store(payload, StoreSettings(guard=guard, retry_for=0.0))
    if trust is not None:  # the client trusts only the test's certificate (it never reads a CA variable)
        opened._client._endpoint.http_session._verify = str(trust)
    return opened


@pytest.fixture
def certificate(tmp_path: Path, require_program: Callable[..., str]) -> tuple[Path, Path]:
    """A self-signed certificate for files.example.com only (key, cert)."""
    openssl = require_program("openssl")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=files.example.com",
            "-addext", "subjectAltName=DNS:files.example.com",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return key, cert


def test_https_goes_to_the_checked_address_and_checks_the_certificate_against_the_name(
    certificate: tuple[Path, Path],
) -> None:
    key, cert = certificate
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    table = {"files.example.com": ["127.0.0.2"], "other.example.com": ["127.0.0.2"]}
    with Origin("127.0.0.2", tls=server_tls) as origin:  # no name resolves here: only the pin reaches it
        origin.files["/b/a.txt"] = b"over tls"
        pinned = store(f"https://files.example.com:{origin.port}", table, trust=cert)
        try:
            assert b"".join(pinned.read("a.txt")) == b"over tls"
        finally:
            pinned.close()
        # The same address under a name the certificate does not carry: the check is by name.
        other = store(f"https://other.example.com:{origin.port}", table, trust=cert)
        try:
            with pytest.raises(TaskFailed, match=r"doesn't match 'files\.example\.com'"):
                b"".join(other.read("a.txt"))
        finally:
            other.close()
    assert [path for path, _ in origin.requests] == ["/b/a.txt"]
    headers = origin.requests[0][1]
    assert headers["host"] == f"files.example.com:{origin.port}"  # the name, as SigV4 signed it
    assert "host" in headers["authorization"].split("SignedHeaders=")[1]


def test_http_goes_to_the_checked_address_with_the_name_in_its_host_header() -> None:
    with Origin("127.0.0.2") as origin:
        origin.files["/b/a.txt"] = b"over http"
        pinned = store(f"http://files.example.com:{origin.port}", {"files.example.com": ["127.0.0.2"]})
        try:
            assert b"".join(pinned.read("a.txt")) == b"over http"
        finally:
            pinned.close()
    assert origin.requests[0][1]["host"] == f"files.example.com:{origin.port}"
