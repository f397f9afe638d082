"""A loopback HTTP server that counts the requests it gets: a hostile document names it, and a test
checks that converting the document made no request there."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["Origin", "listening_origin"]


class Origin:
    def __init__(self, url: str) -> None:
        self.url = url
        self.paths: list[str] = []


@contextmanager
def listening_origin() -> Iterator[Origin]:
    """An origin on 127.0.0.1 answering every GET with a small PNG-looking body, recording the path."""
    origin = Origin("")

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            origin.paths.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"LOOPBACK-SECRET")

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    origin.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield origin
    finally:
        server.shutdown()
        server.server_close()
