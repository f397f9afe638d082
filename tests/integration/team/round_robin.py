"""A TCP load balancer for the chaos tests: each connection goes to the next of its backends that
accepts one (a dead backend is skipped), bytes piped both ways. What a team puts in front of its API
processes, small enough to read.

``stall_upload(n)`` makes the next upload sent to backend ``n`` a slow one: the balancer passes on the
start of its request and holds the rest, as a large file still on its way would be, and says so. A
test then kills that backend with the upload surely in flight, whatever the size of its files.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading

__all__ = ["RoundRobin"]

_UPLOAD = b"POST /upload/"


class RoundRobin:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = backends
        self._turn = itertools.count()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._closed = False
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stall: tuple[int, threading.Event] | None = None
        threading.Thread(target=self._accept, name="round-robin", daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stall_upload(self, backend: int) -> threading.Event:
        """Hold the next upload to ``backend`` midway; the event is set once one is held."""
        held = threading.Event()
        with self._lock:
            self._stall = (backend, held)
        return held

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
            index = next(self._turn) % len(self.backends)
            try:
                backend = socket.create_connection(self.backends[index], timeout=5)
                break
            except OSError:
                continue
        else:
            _close(client)
            return
        self._keep(backend)
        backend.settimeout(None)
        threading.Thread(target=_pipe, args=(backend, client), daemon=True).start()
        self._pipe_requests(client, backend, index)

    def _pipe_requests(self, client: socket.socket, backend: socket.socket, index: int) -> None:
        """Client to backend, holding an upload when one to this backend is to be stalled."""
        try:
            while data := client.recv(65536):
                start = data.find(_UPLOAD)
                held = self._take_stall(index) if start >= 0 else None
                if held is None:
                    backend.sendall(data)
                    continue
                backend.sendall(data[: start + len(_UPLOAD) + 8])  # the request has begun
                held.set()
                while client.recv(65536):  # the rest never arrives; until the backend dies
                    pass
                return
        except OSError:
            pass
        finally:
            _close(client)
            _close(backend)

    def _take_stall(self, index: int) -> threading.Event | None:
        with self._lock:
            if self._stall is None or self._stall[0] != index:
                return None
            held = self._stall[1]
            self._stall = None
            return held

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
