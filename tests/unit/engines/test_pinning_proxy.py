"""The pinning proxy (issue 24): Chromium reaches only the address the URL guard checked. A name that
answers a public address to the request guard and 127.0.0.1 the next time (DNS rebinding) must not
reach a tripwire on loopback, through the proxy alone or through a real capture."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from loopback_listener import Tripwire
from mcv_pipelines.service.engines.base import Engine, EngineRequest
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine
from mcv_pipelines.service.engines.web.pinning_proxy import PinningProxy
from waiting import wait_until

RequireEngine = Callable[..., Engine]
PUBLIC = "93.184.215.14"


class Rebinding:
    """A resolver whose first answer for a name is public and every later one is 127.0.0.1, as a
    rebinding name server with a zero TTL answers; names it does not know go to ``fixed``."""

    def __init__(self, fixed: dict[str, str] | None = None) -> None:
        self.fixed = fixed or {}
        self.queries: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, host: str, port: int) -> list[str]:
        del port
        with self._lock:
            self.queries.append(host)
            if host in self.fixed:
                return [self.fixed[host]]
            return [PUBLIC] if self.queries.count(host) == 1 else ["127.0.0.1"]


class Site:
    """An HTTP server on ``host`` answering ``pages[path]``; ``requests`` records each request line
    with its Connection header."""

    def __init__(self, host: str) -> None:
        self.pages: dict[str, bytes] = {}
        self.requests: list[tuple[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def do_GET(self) -> None:
                site.requests.append((self.path, self.headers.get("connection", "")))
                body = site.pages.get(self.path, b"")
                self.send_response(200 if self.path in site.pages else 404)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def tripwire() -> Iterator[Tripwire]:
    with Tripwire("127.0.0.1") as wire:
        yield wire


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site("127.0.0.2")
    yield server
    server.close()


def ask(proxy: PinningProxy, request: bytes) -> bytes:
    """Send ``request`` to the proxy and return all it answers until it closes."""
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_a_rebound_name_is_refused_at_connect(tripwire: Tripwire) -> None:
    resolver = Rebinding()
    guard = UrlGuard(resolver=resolver)
    guard.addresses("rebind.test", tripwire.port)  # the request guard's look: public, approved
    told: list[tuple[str, int, str]] = []
    with PinningProxy(guard, on_refused=lambda *refusal: told.append(refusal)) as proxy:
        tunnel = ask(proxy, f"CONNECT rebind.test:{tripwire.port} HTTP/1.1\r\n\r\n".encode())
        plain = ask(proxy, f"GET http://rebind.test:{tripwire.port}/x HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        upgrade = ask(proxy, (f"GET http://rebind.test:{tripwire.port}/ws HTTP/1.1\r\nConnection: Upgrade\r\n"
                              "Upgrade: websocket\r\n\r\n").encode())  # fmt: skip
        assert proxy.refused == 3
    for answer in (tunnel, plain, upgrade):
        assert answer.startswith(b"HTTP/1.1 403 "), answer
        assert b"loopback" in answer
    assert resolver.queries.count("rebind.test") == 4  # the proxy resolved it itself, each time
    # Each refusal is told to the task that owns the proxy (its refused_requests), with the reason.
    assert [(host, port) for host, port, _ in told] == [("rebind.test", tripwire.port)] * 3
    assert all("loopback" in why for _, _, why in told)
    assert tripwire.hits == []


def test_an_approved_address_is_the_one_dialled(site: Site) -> None:
    site.pages["/hello?x=1"] = b"hello through the proxy"
    resolver = Rebinding({"allowed.test": "127.0.0.2"})
    guard = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.2/32"]))
    with PinningProxy(guard) as proxy:
        absolute = f"GET http://allowed.test:{site.port}/hello?x=1 HTTP/1.1\r\n"
        plain = ask(proxy, (absolute + "Host: allowed.test\r\nProxy-Connection: keep-alive\r\n\r\n").encode())
        tunnelled = ask(proxy, (f"CONNECT allowed.test:{site.port} HTTP/1.1\r\n\r\n"
                                "GET /hello?x=1 HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n"
                                ).encode())  # fmt: skip
    assert plain.startswith(b"HTTP/1.0 200"), plain
    assert plain.endswith(b"hello through the proxy")
    assert tunnelled.startswith(b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200"), tunnelled
    assert tunnelled.endswith(b"hello through the proxy")
    # Forwarded in origin form, one request per connection (never reused for another host).
    assert site.requests == [("/hello?x=1", "close"), ("/hello?x=1", "close")]


def test_unknown_names_and_too_many_tunnels_get_an_answer(site: Site) -> None:
    resolver = Rebinding({"allowed.test": "127.0.0.2"})
    guard = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.2/32"]))

    def nowhere(host: str, port: int) -> list[str]:
        raise OSError("no such name")

    with PinningProxy(UrlGuard(resolver=nowhere)) as proxy:
        assert ask(proxy, b"CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 502 ")
        assert ask(proxy, b"GET file:///etc/passwd HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    connect = f"CONNECT allowed.test:{site.port} HTTP/1.1\r\n\r\n".encode()
    with PinningProxy(guard, max_tunnels=1) as proxy:
        held = socket.create_connection(("127.0.0.1", proxy.port), timeout=10)
        try:
            held.sendall(connect)
            assert held.recv(100).startswith(b"HTTP/1.1 200")
            assert ask(proxy, connect).startswith(b"HTTP/1.1 503 ")
        finally:
            held.close()
        # The held tunnel's slot is given back once it closes.
        wait_until(lambda: first_answer(proxy, connect).startswith(b"HTTP/1.1 200"),
                   what="the tunnel slot to be free again")  # fmt: skip


def first_answer(proxy: PinningProxy, request: bytes) -> bytes:
    """What the proxy answers first to ``request`` (a tunnel then stays open: not waited for)."""
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(100)


@pytest.fixture
def chromium(require_engine: RequireEngine) -> Iterator[ChromiumEngine]:
    require_engine("chromium")
    engine = ChromiumEngine()
    yield engine
    engine.close()


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_capture_never_reaches_a_rebound_name(
    chromium: ChromiumEngine, site: Site, tripwire: Tripwire, tmp_path: Path, scheme: str
) -> None:
    # Chromium resolves *.localhost to loopback by itself: without the pin it would reach the tripwire.
    site.pages["/page.html"] = (f'<html><body><h1>Pinned page</h1><img src="{scheme}://rebind.localhost:'
                                f'{tripwire.port}/pixel.png"></body></html>').encode()  # fmt: skip
    resolver = Rebinding()
    guard = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.2/32"]))
    request = EngineRequest(
        operation="capture-website", input_format="website", output_format="pdf",
        options={"url": f"http://127.0.0.2:{site.port}/page.html"}, inputs=[],
        output_dir=tmp_path / "out", work_dir=tmp_path / "work", timeout=60, url_guard=guard,
    )  # fmt: skip
    result = chromium.run(request)
    text = "".join(page.extract_text() for page in PdfReader(result.files[0]).pages)
    assert "Pinned page" in text
    assert tripwire.hits == []
    assert resolver.queries.count("rebind.localhost") == 2  # the request guard's, then the proxy's
