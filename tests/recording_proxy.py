"""A loopback HTTP relay in front of a real server that records each request's method, path and
headers: how a test sees what a client sent when the server accepts a header without keeping it
(SeaweedFS takes a canned ACL and stores nothing of it). Imported by name (tests/ is on sys.path).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

__all__ = ["RecordingProxy"]

_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection"})


class RecordingProxy:
    """Relays every request to ``upstream``; ``requests`` holds (method, path, headers) of each.
    ``host``: the Host header the upstream sees instead of the relay's (a server that builds URLs from
    it then names that host). ``address``: where the relay listens (a free loopback port by default)."""

    def __init__(
        self, upstream: str, host: str | None = None, address: tuple[str, int] = ("127.0.0.1", 0)
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.host = host
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _relay(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                relay.requests.append((self.command, self.path, headers))
                length = int(headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                sent = {k: v for k, v in headers.items() if k not in _HOP}
                if relay.host is not None:
                    sent["host"] = relay.host
                with httpx.Client(timeout=60.0) as client:
                    answer = client.request(
                        self.command, relay.upstream + self.path, headers=sent, content=body
                    )
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in _HOP and name.lower() != "content-length":
                        self.send_header(name, value)
                data = answer.content if self.command != "HEAD" else b""
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _relay

        self.server = ThreadingHTTPServer(address, Handler)
        self.url = f"http://{address[0]}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> RecordingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
