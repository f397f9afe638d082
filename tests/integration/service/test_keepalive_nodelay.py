"""Answers on a kept-alive connection are not held back by Nagle's algorithm (issue 15).

The service answers in two writes (headers, then body); with Nagle on, the second waited for the
client's delayed ACK, ~40 ms on every request after a connection's first. Timing is for bench/; here
the cause is checked: the server's side of a client's connection has TCP_NODELAY set.
"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx

from mcv_pipelines.service.server import LocalService


def test_the_servers_connections_send_without_nagle(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path / "data") as service:
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers) as client:
            for _ in range(2):  # the second request reuses the connection
                assert client.get("/v2/users/me").status_code == 200
            # uvicorn keeps the open connections' protocols here; each has its transport's socket.
            connections = list(service._server.server_state.connections)  # type: ignore[union-attr]  # started above: the server is there
            assert connections
            for connection in connections:
                sock = connection.transport.get_extra_info("socket")
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
