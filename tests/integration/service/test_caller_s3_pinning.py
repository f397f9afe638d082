"""The caller's S3 client on a served instance (caller_storage/s3.py): its sockets go to the address
the guard checked while TLS stays the name's (SNI and the certificate check), over https as over http,
and a region redirect goes again to that address.
Loopback servers only; the client is trusted with the test's own certificate, its one change here."""

from __future__ import annotations

import ssl
import subprocess
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from origins import Origin

from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage.contract import StoreSettings
from mcv_pipelines.service.work.caller_storage.s3 import S3Store


def store_payload(endpoint: str) -> dict[str, Any]:
    return {
        "bucket": "b",
        "region": "us-east-1",
        "endpoint": endpoint,
        "access_key_id": "AKIDPINNING",
        "secret_access_key": "not-a-real-secret",
    }


def store(endpoint: str, table: dict[str, Sequence[str]], trust: Path | None = None) -> S3Store:
    guard = UrlGuard(resolver=lambda host, _: table[host], allowed_networks=parse_networks(["127.0.0.2/32"]))
    opened = S3Store(store_payload(endpoint), StoreSettings(guard=guard, retry_for=0.0))
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


class _MovedOnce(BaseHTTPRequestHandler):
    """Answers the first GET as S3 does for a bucket in another region (301, PermanentRedirect, the
    bucket's region in a header), every later one with the object."""

    seen: ClassVar[list[tuple[str, str]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def do_GET(self) -> None:
        credential = self.headers["authorization"].split("Credential=")[1].split(",")[0]
        self.seen.append((self.headers["host"], credential.split("/")[2]))  # (Host, signing region)
        if len(self.seen) == 1:
            body = (
                b"<Error><Code>PermanentRedirect</Code><Message>elsewhere</Message>"
                b"<Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>b</Bucket></Error>"
            )
            self.send_response(301)
            self.send_header("x-amz-bucket-region", "eu-west-1")
        else:
            body = b"moved"
            self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_region_redirect_is_sent_again_to_the_checked_address() -> None:
    """botocore answers a 301 to another region by signing for that region; the request goes again
    through the guard and the pinned pool, to the same checked address (the endpoint is the task's, so
    the host stays its name)."""
    asked: list[str] = []
    table = {"files.example.com": ["127.0.0.2"]}

    def resolve(host: str, port: int) -> Sequence[str]:
        asked.append(host)
        return table[host]

    _MovedOnce.seen = []
    server = ThreadingHTTPServer(("127.0.0.2", 0), _MovedOnce)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        guard = UrlGuard(resolver=resolve, allowed_networks=parse_networks(["127.0.0.2/32"]))
        moved = S3Store(
            store_payload(f"http://files.example.com:{port}"), StoreSettings(guard=guard, retry_for=0.0)
        )
        try:
            assert b"".join(moved.read("a.txt")) == b"moved"
        finally:
            moved.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    host = f"files.example.com:{port}"
    assert _MovedOnce.seen == [(host, "us-east-1"), (host, "eu-west-1")]
    assert asked == ["files.example.com"]  # resolved once, for the check; never by the connection
