"""A loopback TCP listener that records every connection made to it: the "tripwire" of the sealing
tests (issue 24). Whatever reaches it (an engine program, Chromium, a redirect) is a hole; a test
asserts ``hits`` is empty at its end. Imported by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ["Tripwire"]


class Tripwire:
    """Listens on ``host`` (a free port); ``hits`` holds the first bytes each connection sent."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.socket = socket.socket()
        self.socket.bind((host, 0))
        self.socket.listen(64)
        self.host = host
        self.port = int(self.socket.getsockname()[1])
        self.hits: list[bytes] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> Tripwire:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # Closing alone does not wake a thread blocked in accept() on Linux (every test waited the
        # join's 5 s out); shutting the listener down does.
        with contextlib.suppress(OSError):
            self.socket.shutdown(socket.SHUT_RDWR)
        self.socket.close()
        self.thread.join(5)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    self.hits.append(connection.recv(200) or b"(connected)")
                except OSError:
                    self.hits.append(b"(connected)")
