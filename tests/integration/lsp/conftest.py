"""Each test talks to a real `mcv lsp` subprocess over stdio through ``lsp_client.LspClient``.

Every session ends with shutdown and exit, and the server must have written nothing on stderr: stdout
is the protocol, and a traceback on stderr is a bug.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_client import LspClient


def _stopped(client: LspClient) -> None:
    client.stop()
    assert client.process.returncode == 0
    assert client.stderr == b""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LspClient]:
    """One server for a module's tests (each opens its own documents): a start costs a second."""
    root = tmp_path_factory.mktemp("lsp")
    client = LspClient(cwd=root)
    client.initialize(root)
    yield client
    _stopped(client)


@pytest.fixture
def start(tmp_path: Path) -> Iterator[object]:
    """``start(options=None)`` starts and initializes a server rooted at ``tmp_path``."""
    clients: list[LspClient] = []

    def make(options: object = None, args: tuple[str, ...] = ()) -> LspClient:
        client = LspClient(args, cwd=tmp_path)
        clients.append(client)
        client.initialize(tmp_path, options)
        return client

    yield make
    for client in clients:
        _stopped(client)
