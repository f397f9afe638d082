"""A loopback relay of GETs in front of Swift or S3 that drops the first answer for each object
part-way, as a cut connection would: how the Swift and S3 tests see a read go on from where it
stopped. Imported by name (tests/ is on sys.path)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

__all__ = ["CuttingRelay"]


class CuttingRelay:
    """Relays GETs to Swift; the first answer for each object stops after ``keep`` bytes of its body
    and the connection is closed, as a dropped connection would. ``ranges``: the Range of each GET,
    ``matches``: its If-Match. ``signed``: every header relayed as it came, Host included (S3's
    signature covers them); ``on_cut``: called with the path once its first answer was cut."""

    def __init__(
        self, upstream: str, keep: int, signed: bool = False, on_cut: Callable[[str], None] | None = None
    ) -> None:
        self.ranges: list[str | None] = []
        self.matches: list[str | None] = []
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
                    or (signed and k.lower() not in ("connection", "accept-encoding"))
                }
                relay.ranges.append(self.headers.get("Range"))
                relay.matches.append(self.headers.get("If-Match"))
                answer = httpx.get(upstream + self.path, headers=wanted, trust_env=False)
                self.send_response(answer.status_code)
                for name in ("Content-Type", "Content-Length", "Content-Range", "ETag"):
                    if name in answer.headers:
                        self.send_header(name, answer.headers[name])
                self.end_headers()
                query = self.path.partition("?")[2]
                first = self.path not in cut and query in ("", "x-id=GetObject")  # objects, not listings
                cut.add(self.path)
                self.wfile.write(answer.content[:keep] if first else answer.content)
                if first:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    if on_cut is not None:
                        on_cut(self.path)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
