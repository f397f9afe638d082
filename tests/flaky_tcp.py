"""A loopback TCP relay in front of a server that misbehaves as a network does: its port refuses
connections until ``serve()`` (bound, not listening), and it can cut connections once ``cut_after``
bytes went through them (both directions counted), as a connection lost mid-transfer. What the SFTP
retry tests put between the service and the server; the team tests read ``owners``, the process that
made each connection (from /proc), to see which process of a deployment reached a caller's store.
Imported by name (tests/ is on sys.path)."""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
from collections.abc import Callable

__all__ = ["FlakyRelay", "owner_of"]


class FlakyRelay:
    """Relays 127.0.0.1:``port`` to ``upstream``; ``cuts``: how many connections it cut; ``owners``:
    the process id that opened each connection (0 where /proc did not say)."""

    def __init__(
        self,
        upstream: tuple[str, int],
        cut_after: int = 0,
        cuts: int = 0,
        then: tuple[str, int] | None = None,
        on_cut: Callable[[], None] | None = None,
        port: int = 0,
    ) -> None:
        self.upstream, self._then = upstream, then  # ``then``: where connections after the first go
        self._on_cut = on_cut  # called as a connection is cut, before the next is let in
        self.cut_after, self._cuts_left, self.cuts = cut_after, cuts, 0
        self.accepted = 0
        self.owners: list[int] = []
        self._lock = threading.Lock()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", port))  # bound, not listening: a connection is refused
        self.port = int(self._listener.getsockname()[1])
        self._open: list[socket.socket] = []

    def serve(self) -> FlakyRelay:
        self._listener.listen(16)
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        while True:
            try:
                client, peer = self._listener.accept()
            except OSError:
                return
            self.owners.append(owner_of(peer[1]))
            try:
                to = self._then if self._then and self.accepted else self.upstream
                server = socket.create_connection(to)
            except OSError:  # the server is away: so is the relay, to this client
                _reset(client)
                continue
            with self._lock:
                self.accepted += 1
                self._open += [client, server]
            moved = [0]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(
                    target=self._pump, args=(source, sink, client, server, moved), daemon=True
                ).start()

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        client: socket.socket,
        server: socket.socket,
        moved: list[int],
    ) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
                with self._lock:
                    moved[0] += len(data)
                    cut = self._cuts_left > 0 and self.cut_after and moved[0] > self.cut_after
                    if cut:
                        self._cuts_left -= 1
                        self.cuts += 1
                if cut:
                    if self._on_cut is not None:
                        self._on_cut()
                    _reset(client)
                    _reset(server)
                    return
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        with contextlib.suppress(OSError):  # wakes the accepting thread: closing alone left it listening
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for sock in self._open:
                _reset(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a dropped connection looks to the other end; the shutdown
    wakes the relay's own thread reading it."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def owner_of(port: int) -> int:
    """The process with a TCP socket bound to 127.0.0.1:``port`` (the other end of a connection
    accepted here), found through /proc as ``ss -p`` does; 0 when none is seen."""
    wanted = f"0100007F:{port:04X}"
    inodes = set()
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == wanted:
                inodes.add(f"socket:[{fields[9]}]")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                        return int(pid)
    return 0
