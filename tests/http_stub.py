"""A request handler class served on a free loopback port from a thread, for tests that need a small
HTTP server of their own (imported by name: pytest puts tests/ on sys.path).

    with served(Handler) as server:
        httpx.get(f"http://127.0.0.1:{server.port}/")
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["Served", "served"]


@dataclass(frozen=True)
class Served:
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def served(handler: type[BaseHTTPRequestHandler]) -> Iterator[Served]:
    """``handler`` on 127.0.0.1 (a free port) until the block ends; then shut down and closed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(int(server.server_address[1]))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
