"""Connections the client's asyncio backend opens (api/netio.py): a connect cut short by its timeout
leaves no socket behind, whatever moment the timeout lands on."""

from __future__ import annotations

import asyncio
import gc
import random
import socket
import warnings
from collections.abc import Iterator

import httpcore
import pytest

from mcv_pipelines.api.netio import AsyncioBackend


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4096)
    server.setblocking(False)
    yield server
    server.close()


def _drain(server: socket.socket) -> None:
    while True:
        try:
            accepted, _ = server.accept()
        except BlockingIOError:
            return
        accepted.close()


async def _connect_and_cancel(server: socket.socket, host: str, attempts: int) -> int:
    backend, port, made = AsyncioBackend(), server.getsockname()[1], 0
    chance = random.Random(7)
    for attempt in range(attempts):
        try:  # timeouts from nothing to a little more than a loopback connect takes
            stream = await backend.connect_tcp(host, port, timeout=chance.uniform(0, 0.0003))
        except httpcore.ConnectTimeout:
            pass
        else:
            await stream.aclose()
            made += 1
        if attempt % 50 == 0:
            _drain(server)
    return made


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_connect_cut_by_its_timeout_leaves_no_socket_open(listener: socket.socket, host: str) -> None:
    # The happy-eyeballs race dropped a socket that connected as the timeout fired: unclosed until
    # garbage collection (seen as ResourceWarnings in full runs), the server's side open meanwhile.
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        asyncio.run(_connect_and_cancel(listener, host, 400))
        gc.collect()
    unclosed = [str(warning.message) for warning in seen if issubclass(warning.category, ResourceWarning)]
    assert unclosed == [], f"{len(unclosed)} sockets left unclosed, e.g. {unclosed[:2]}"
