"""A loopback relay of GETs in front of Swift that drops the first answer for each object part-way,
as a cut connection would: how the Swift tests see a read go on from where it stopped. Imported by
name (tests/ is on sys.path)."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

__all__ = ["CuttingRelay"]


class CuttingRelay:
    """Relays GETs to Swift; the first answer for each object stops after ``keep`` bytes of its body
    and the connection is closed, as a dropped connection would. ``ranges``: the Range of each GET."""

    def __init__(self, upstream: str, keep: int) -> None:
        self.ranges: list[str | None] = []
        relay, cut = self, set[str]()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                wanted = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() in ("range", "if-match", "x-auth-token")
                }
                relay.ranges.append(self.headers.get("Range"))
                answer = httpx.get(upstream + self.path, headers=wanted, trust_env=False)
                self.send_response(answer.status_code)
                for name in ("Content-Type", "Content-Length", "Content-Range", "ETag"):
                    if name in answer.headers:
                        self.send_header(name, answer.headers[name])
                self.end_headers()
                first = self.path not in cut and "?" not in self.path
                cut.add(self.path)
                self.wfile.write(answer.content[:keep] if first else answer.content)
                if first:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
