"""The client's own asyncio sockets (api.netio) against real loopback servers: plain, TLS, proxy, faults.

The servers are a few lines of asyncio (loopback_http), so that a test can make one stay silent, close
an idle connection or speak TLS with a certificate made for the test.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from client_helpers import client_for
from loopback_http import LoopbackHttp, as_json

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import NetworkError
from mcv_pipelines.api.netio import AsyncioStream, use_asyncio_sockets
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.service.server import LocalService


def _key(service: LocalService) -> dict[str, str]:
    return {"Authorization": f"Bearer {service.api_key}"}


async def test_the_default_client_talks_to_the_service_over_asyncio_sockets(service: LocalService) -> None:
    async with client_for(service) as api:
        first = await api.create_job({"in": {"operation": "import/upload"}}, tag="sockets")
        again = await api.get_job(first.id)
        response = await api.http.get(f"{service.base_url}/v2/jobs/{first.id}", headers=_key(service))
    assert again.id == first.id
    assert again.tag == "sockets"
    assert response.status_code == 200
    assert isinstance(response.extensions["network_stream"], AsyncioStream)


async def test_a_client_on_plain_http_never_reads_the_trust_store(
    service: LocalService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the system's certificates takes ~15 ms of every start; plain http does not need them."""
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(context: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(args)
        real(context, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    async with client_for(service) as api:
        job = await api.create_job({"in": {"operation": "import/upload"}}, tag="no-tls")
    assert job.tag == "no-tls"
    assert loads == []


async def test_a_transport_given_by_the_caller_is_left_alone(service: LocalService) -> None:
    mine = httpx.AsyncHTTPTransport()
    async with client_for(service, transport=mine) as api:
        response = await api.http.get(f"{service.base_url}/v2/jobs", headers=_key(service))
    assert response.status_code == 200
    assert not isinstance(response.extensions["network_stream"], AsyncioStream)


async def test_a_silent_server_is_a_read_timeout_with_the_flag_to_raise_it() -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (the kernel's backlog) and never answers
    port = silent.getsockname()[1]
    settings = Settings(base_url=f"http://127.0.0.1:{port}", api_key="sk-test-sockets-0001", read_timeout=0.3)
    try:
        async with ApiClient(settings, retry=RetryPolicy(attempts=1)) as api:
            with pytest.raises(NetworkError) as caught:
                await api.me()
    finally:
        silent.close()
    assert caught.value.timed_out
    assert (
        "GET /v2/users/me: network error: no answer within 0.3 s (--read-timeout, MCV_READ_TIMEOUT)"
        in str(caught.value)
    )
    assert isinstance(caught.value.__cause__, httpx.ReadTimeout)


async def test_a_refused_connection_is_a_connect_error_naming_the_address() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again: nothing listens there now
    settings = Settings(base_url=f"http://127.0.0.1:{port}", api_key="sk-test-sockets-0001")
    async with ApiClient(settings, retry=RetryPolicy(attempts=1)) as api:
        with pytest.raises(NetworkError) as caught:
            await api.me()
    assert not caught.value.timed_out
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert f"ConnectError: [Errno 111] Connect call failed ('127.0.0.1', {port})" in str(caught.value)


async def test_an_idle_connection_the_server_closed_is_replaced_not_an_error() -> None:
    server = LoopbackHttp(lambda line, body: (as_json({"ok": line}), True))
    async with server, httpx.AsyncClient() as http:
        use_asyncio_sockets(http)
        first = await http.get(f"http://127.0.0.1:{server.port}/a")
        await asyncio.sleep(0.05)  # the server's FIN arrives while the connection sits in the pool
        second = await http.post(f"http://127.0.0.1:{server.port}/b", content=b"x")
    assert (first.json(), second.json()) == ({"ok": "GET /a HTTP/1.1"}, {"ok": "POST /b HTTP/1.1"})
    assert server.connections == 2


async def test_megabytes_each_way_arrive_whole_through_flow_control() -> None:
    blob = bytes(range(256)) * (12 * 4096)  # 12 MiB: above the buffer that pauses reading
    server = LoopbackHttp(lambda line, body: (body[::-1], False))
    async with server, httpx.AsyncClient() as http:
        use_asyncio_sockets(http)
        async with http.stream("PUT", f"http://127.0.0.1:{server.port}/blob", content=blob) as response:
            digest = hashlib.sha256()
            async for chunk in response.aiter_bytes():
                digest.update(chunk)
                await asyncio.sleep(0)  # a slow consumer lets the buffer fill
    assert server.seen == [("PUT /blob HTTP/1.1", len(blob))]
    assert digest.hexdigest() == hashlib.sha256(blob[::-1]).hexdigest()


@pytest.fixture
def tls_files(tmp_path: Path, require_program: Callable[..., str]) -> tuple[Path, Path]:
    openssl = require_program("openssl")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
async def tls_server(tls_files: tuple[Path, Path]) -> AsyncIterator[LoopbackHttp]:
    cert, key = tls_files
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    async with LoopbackHttp(
        lambda line, body: (as_json({"data": {"id": "u-1", "username": "tls"}}), False), context
    ) as server:
        yield server


async def test_https_goes_through_start_tls_and_keeps_the_connection(
    tls_server: LoopbackHttp, tls_files: tuple[Path, Path]
) -> None:
    trusting = ssl.create_default_context(cafile=str(tls_files[0]))
    async with httpx.AsyncClient(verify=trusting) as http:
        use_asyncio_sockets(http)
        answers = [await http.get(f"https://localhost:{tls_server.port}/v2/users/me") for _ in range(3)]
    assert [a.json()["data"]["username"] for a in answers] == ["tls"] * 3
    stream = answers[0].extensions["network_stream"]
    assert isinstance(stream, AsyncioStream)
    assert stream.get_extra_info("ssl_object") is not None
    assert tls_server.connections == 1


async def test_an_untrusted_certificate_is_a_connect_error_as_before(tls_server: LoopbackHttp) -> None:
    settings = Settings(base_url=f"https://localhost:{tls_server.port}", api_key="sk-test-sockets-0001")
    async with ApiClient(settings, retry=RetryPolicy(attempts=1)) as api:
        with pytest.raises(NetworkError) as caught:
            await api.me()
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)


async def test_a_proxy_from_the_environment_still_carries_the_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with LoopbackHttp(
        lambda line, body: (as_json({"data": {"id": "u-1", "username": "proxied"}}), False)
    ) as proxy:
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        settings = Settings(base_url="http://service.invalid", api_key="sk-test-sockets-0001")
        async with ApiClient(settings, retry=RetryPolicy(attempts=1)) as api:
            user = await api.me()
    assert user.username == "proxied"
    assert proxy.seen == [("GET http://service.invalid/v2/users/me HTTP/1.1", 0)]


async def _tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A CONNECT proxy of one connection: pipes bytes both ways to the host the request names."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    host, port = head.split(" ")[1].rsplit(":", 1)
    up_reader, up_writer = await asyncio.open_connection(
        "127.0.0.1" if host == "localhost" else host, int(port)
    )
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")

    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            dst.close()

    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def test_https_through_a_connect_proxy_from_the_environment(
    tls_server: LoopbackHttp, tls_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = await asyncio.start_server(_tunnel, "127.0.0.1", 0)
    proxy_port = proxy.sockets[0].getsockname()[1]
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy_port}")
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_files[0]))  # httpx's default trust store reads it
    settings = Settings(base_url=f"https://localhost:{tls_server.port}", api_key="sk-test-sockets-0001")
    try:
        async with ApiClient(settings, retry=RetryPolicy(attempts=1)) as api:
            users = [await api.me(), await api.me()]
    finally:
        proxy.close()
    assert [u.username for u in users] == ["tls", "tls"]
    assert tls_server.connections == 1  # one tunnel, kept alive
