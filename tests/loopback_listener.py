"""A loopback TCP listener that records every connection made to it: the "tripwire" of the sealing
tests (issue 24). Whatever reaches it (an engine program, Chromium, a redirect) is a hole; a test
asserts ``hits`` is empty at its end. Imported by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import contextlib
import secrets
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
        self._hits: list[bytes] = []
        self._marks: dict[bytes, threading.Event] = {}
        self._open = False
        self.thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def hits(self) -> list[bytes]:
        """What reached the listener: every connection made before this read is counted.

        A connection is complete once its program's connect() returns, but this listener's thread may
        not have accepted it yet on a loaded machine (issue 50: seen with four test workers on two
        cores). A mark of its own is queued behind it and waited for, so a hit is never missed, and an
        empty list means nothing came.
        """
        if self._open:
            self._settle()
        return list(self._hits)

    def __enter__(self) -> Tripwire:
        self._open = True
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._settle()
        self._open = False
        # Closing alone does not wake a thread blocked in accept() on Linux (every test waited the
        # join's 5 s out); shutting the listener down does.
        with contextlib.suppress(OSError):
            self.socket.shutdown(socket.SHUT_RDWR)
        self.socket.close()
        self.thread.join(5)

    def _settle(self) -> None:
        mark = b"\0tripwire-mark-" + secrets.token_hex(8).encode()
        seen = self._marks[mark] = threading.Event()
        with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), timeout=5) as own:
            own.sendall(mark)
            # Connections are accepted in the order they were made: the mark comes after every one
            # made before it. One that sends nothing costs the thread its 2 s read timeout.
            seen.wait(30)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    got = connection.recv(200) or b"(connected)"
                except OSError:
                    got = b"(connected)"
                if got in self._marks:
                    self._marks[got].set()
                else:
                    self._hits.append(got)
