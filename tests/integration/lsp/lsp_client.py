"""A small LSP client for tests and bench/lsp.py: JSON-RPC with Content-Length framing over a real
`mcv lsp` subprocess's stdin/stdout.

A reader thread sorts what the server sends into responses (by id) and notifications (in order), so
a test can wait for "the diagnostics of this uri at this version" without racing the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["LspClient", "LspError", "mcv_command"]


class LspError(Exception):
    """The server answered a request with an error, or did not answer in time."""


def mcv_command() -> list[str]:
    """The installed `mcv` next to this interpreter, else the package run as a module."""
    script = Path(sys.executable).parent / "mcv"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mcv_pipelines"]


def _read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise LspError("a message without Content-Length")
    body: dict[str, Any] = json.loads(stream.read(length))
    return body


class LspClient:
    """One server process. Use as a context manager: it shuts the server down politely on exit."""

    def __init__(self, extra_args: Sequence[str] = (), cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [*mcv_command(), "lsp", *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        self._next_id = 0
        self._lock = threading.Condition()
        self._responses: dict[int, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stderr = b""

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while (message := _read_message(self.process.stdout)) is not None:
            with self._lock:
                if "id" in message and "method" not in message:
                    self._responses[int(message["id"])] = message
                elif "id" in message:  # a request from the server (configuration, ...): answer null
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                else:
                    self.notifications.append(message)
                self._lock.notify_all()

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps(message).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: Any, timeout: float = 15) -> Any:
        with self._lock:
            self._next_id += 1
            ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        with self._lock:
            if not self._lock.wait_for(lambda: ident in self._responses, timeout):
                raise LspError(f"no answer to {method} within {timeout} s")
            answer = self._responses.pop(ident)
        if "error" in answer:
            raise LspError(f"{method}: {answer['error']}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
        """The first notification (from the start of the session) that ``predicate`` accepts."""
        with self._lock:
            found: list[dict[str, Any]] = []

            def match() -> bool:
                found[:] = [n for n in self.notifications if predicate(n)][:1]
                return bool(found)

            if not self._lock.wait_for(match, timeout):
                raise LspError(f"no matching notification within {timeout} s")
            self.notifications.remove(found[0])
            return found[0]

    # The protocol steps a test takes, named as the spec names them.

    def initialize(self, root: Path, options: Any = None) -> Any:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        document = {"uri": uri, "languageId": "yaml", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )

    def edit(self, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
        """An incremental change: replace ``start..end`` of ``line`` with ``text``."""
        change = {
            "range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}},
            "text": text,
        }
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 15) -> list[dict[str, Any]]:
        """The next diagnostics published for ``uri`` (at ``version`` when given)."""

        def wanted(n: dict[str, Any]) -> bool:
            params = n.get("params", {})
            return (
                n.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and (version is None or params.get("version") == version)
            )

        found: list[dict[str, Any]] = self.wait_for(wanted, timeout)["params"]["diagnostics"]
        return found

    def at(self, method: str, uri: str, line: int, character: int, **extra: Any) -> Any:
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
        return self.request(method, {**params, **extra})

    def stop(self) -> None:
        """shutdown, exit, and wait for the process; keeps what it wrote on stderr."""
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
            except (LspError, OSError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
