"""Each test talks to a real `mcv lsp` subprocess over stdio through ``lsp_client.LspClient``.

Every session ends with shutdown and exit, and the server must have written nothing on stderr: stdout
is the protocol, and a traceback on stderr is a bug.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_client import LspClient


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
        client.stop()
        assert client.process.returncode == 0
        assert client.stderr == b""
