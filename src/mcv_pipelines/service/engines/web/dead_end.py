"""Where Chromium's WebSockets go: a proxy that takes every connection and closes it at once.

The DevTools Fetch domain pauses every request but WebSocket handshakes, and blocking URLs through
DevTools does not stop them either (tried on Chromium 156). Chromium picks a WebSocket's proxy from
the ``socks=`` rule when http and https have rules of their own, so with
``--proxy-server=http=direct://;https=direct://;socks=socks5://127.0.0.1:PORT`` pages go out directly
(through the request guard) and every ws:// and wss:// connection comes here and fails. The port
stays ours while the process lives, so no other program can take it and receive them.
"""

from __future__ import annotations

import contextlib
import functools
import socket
import threading

__all__ = ["proxy_flags", "websocket_rule"]


class _DeadEnd:
    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = int(self.socket.getsockname()[1])
        threading.Thread(target=self._refuse, daemon=True, name="websocket-dead-end").start()

    def _refuse(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with contextlib.suppress(OSError):
                connection.close()


@functools.cache
def _dead_end() -> _DeadEnd:
    return _DeadEnd()


def websocket_rule() -> str:
    """The proxy rule sending WebSockets to the dead end (a browser context's rules end with it)."""
    return f"socks=socks5://127.0.0.1:{_dead_end().port}"


def proxy_flags() -> tuple[str, ...]:
    """Chromium flags sending WebSockets to the dead end, loopback ones included."""
    return (
        f"--proxy-server=http=direct://;https=direct://;{websocket_rule()}",
        "--proxy-bypass-list=<-loopback>",  # Chromium never proxies loopback unless told
    )
