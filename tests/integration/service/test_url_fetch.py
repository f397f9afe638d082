"""open_url, the fetch behind import/url: a pinned address keeps the name for TLS and Host, origin-only
headers stay with their origin, and redirects are bounded. Loopback servers only."""

from __future__ import annotations

import ssl
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx
import pytest
from origins import Origin

from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.work.url_fetch import MAX_REDIRECTS, BadRedirect, open_url


def loopback_guard(table: dict[str, Sequence[str]]) -> UrlGuard:
    def resolve(host: str, port: int) -> Sequence[str]:
        return table[host]

    return UrlGuard(resolver=resolve, allowed_networks=parse_networks(["127.0.0.2/31"]))


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


def test_https_to_a_pinned_address_checks_the_certificate_against_the_name(
    certificate: tuple[Path, Path],
) -> None:
    key, cert = certificate
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    trust = ssl.create_default_context(cafile=str(cert))
    guard = loopback_guard({"files.example.com": ["127.0.0.2"], "other.example.com": ["127.0.0.2"]})
    with Origin("127.0.0.2", tls=server_tls) as origin:
        origin.files["/a.txt"] = b"over tls"
        url = f"https://files.example.com:{origin.port}/a.txt"
        with open_url(url, {}, guard, verify=trust) as response:
            assert response.status_code == 200
            assert response.read() == b"over tls"
        # The same address under a name the certificate does not carry: the check is by name.
        with (
            pytest.raises(httpx.ConnectError, match="certificate verify failed"),
            open_url(f"https://other.example.com:{origin.port}/a.txt", {}, guard, verify=trust),
        ):
            pass
    assert origin.requests[0][1]["host"] == f"files.example.com:{origin.port}"


def test_authorization_stays_with_its_origin_across_a_redirect() -> None:
    guard = loopback_guard({"a.example": ["127.0.0.2"], "b.example": ["127.0.0.3"]})
    with Origin("127.0.0.2") as first, Origin("127.0.0.3") as second:
        second.files["/f.txt"] = b"moved"
        first.redirects["/f.txt"] = f"http://b.example:{second.port}/f.txt"
        headers = {"Authorization": "Bearer for-a-only", "X-Trace": "kept"}
        with open_url(f"http://a.example:{first.port}/f.txt", headers, guard) as response:
            assert response.read() == b"moved"
    assert first.requests[0][1]["authorization"] == "Bearer for-a-only"
    assert "authorization" not in second.requests[0][1]
    assert second.requests[0][1]["x-trace"] == "kept"
    assert second.requests[0][1]["host"] == f"b.example:{second.port}"


def test_redirects_are_bounded_and_only_to_http() -> None:
    with Origin("127.0.0.1") as origin:
        origin.redirects["/loop"] = "/loop"
        origin.redirects["/ftp"] = "ftp://127.0.0.1/x"
        with (
            pytest.raises(BadRedirect, match=f"more than {MAX_REDIRECTS} redirects"),
            open_url(f"http://127.0.0.1:{origin.port}/loop", {}, None),
        ):
            pass
        assert len(origin.requests) == MAX_REDIRECTS + 1
        with (
            pytest.raises(BadRedirect, match=r"127\.0\.0\.1 redirected to a ftp URL"),
            open_url(f"http://127.0.0.1:{origin.port}/ftp", {}, None),
        ):
            pass
