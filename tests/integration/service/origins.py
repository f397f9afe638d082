"""A loopback web server for import/url tests: bound to any loopback address (127.0.0.2 ...), with
files, redirects and optional TLS, recording every request with its headers.

Imported by name (pytest puts this folder on sys.path).
"""

from __future__ import annotations

import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Origin"]


class Origin:
    """``files[path]`` answers 200 with the bytes; ``redirects[path]`` answers 302 to the location."""

    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []  # (path with query, headers)
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def do_GET(self) -> None:
                origin.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                path = self.path.split("?")[0]
                if path in origin.redirects:
                    self.send_response(302)
                    self.send_header("location", origin.redirects[path])
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                content = origin.files.get(path)
                self.send_response(404 if content is None else 200)
                self.send_header("content-length", str(len(content or b"")))
                self.end_headers()
                self.wfile.write(content or b"")

        self.server = ThreadingHTTPServer((host, 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Origin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
