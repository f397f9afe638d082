"""A TCP load balancer for the chaos tests: each connection goes to the next of its backends that
accepts one (a dead backend is skipped), bytes piped both ways. What a team puts in front of its API
processes, small enough to read."""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading

__all__ = ["RoundRobin"]


class RoundRobin:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = backends
        self._turn = itertools.count()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._closed = False
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="round-robin", daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._keep(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _keep(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.add(sock)

    def _serve(self, client: socket.socket) -> None:
        for _ in range(len(self.backends)):
            try:
                address = self.backends[next(self._turn) % len(self.backends)]
                backend = socket.create_connection(address, timeout=5)
                break
            except OSError:
                continue
        else:
            _close(client)
            return
        self._keep(backend)
        backend.settimeout(None)
        threading.Thread(target=_pipe, args=(backend, client), daemon=True).start()
        _pipe(client, backend)

    def close(self) -> None:
        """Stop accepting, and cut every connection still open."""
        self._closed = True
        self._listener.close()
        with self._lock:
            sockets, self._sockets = list(self._sockets), set()
        for sock in sockets:
            _close(sock)


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:  # either side gone: close both, so the other direction ends too
        _close(source)
        _close(target)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
