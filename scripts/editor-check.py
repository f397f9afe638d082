#!/usr/bin/env python3
"""Ask yaml-language-server what an editor shows for a pipeline: diagnostics, completion, hover.

How the claims about schemas/pipeline.schema.json in editors were checked (issue 12): the server is
the one VS Code's YAML extension runs, spoken to over stdio. It needs Node and the server itself
(``npm install yaml-language-server`` somewhere; pass its bin/yaml-language-server with --server).

    .venv/bin/python scripts/editor-check.py FILE [--complete LINE:COL ...] [--hover LINE:COL ...]
        [--server PATH]

Lines and columns count from 1, as `mcv validate` prints them. The file's own modeline names the
schema. Output: one line per diagnostic, then the labels of each completion and the text of each hover.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any


class Server:
    """A yaml-language-server subprocess and the few LSP messages this script needs."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.diagnostics: list[dict[str, Any]] | None = None
        self.last_id = 0
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b"\n"):
                if not line:
                    return
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length)))

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
        self.process.stdin.flush()

    def _handle(self, message: dict[str, Any]) -> None:
        if message.get("method") == "textDocument/publishDiagnostics":
            self.diagnostics = message["params"]["diagnostics"]
        elif "id" in message and "method" in message:  # a request of the server's: answer it plainly
            items = message.get("params", {}).get("items", [])
            result = [{"validate": True, "completion": True, "hover": True}] * len(items) or None
            self._send({"id": message["id"], "result": result})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.last_id += 1
        self._send({"id": self.last_id, "method": method, "params": params})
        while True:
            message = self.inbox.get(timeout=30)
            if message.get("id") == self.last_id and "method" not in message:
                return message.get("result")
            self._handle(message)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def wait_for_diagnostics(self, seconds: float) -> list[dict[str, Any]]:
        end = time.monotonic() + seconds
        while self.diagnostics is None and time.monotonic() < end:
            with contextlib.suppress(queue.Empty):
                self._handle(self.inbox.get(timeout=0.1))
        return self.diagnostics or []


def _position(text: str) -> dict[str, int]:
    line, _, column = text.partition(":")
    return {"line": int(line) - 1, "character": int(column) - 1}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--complete", action="append", default=[], metavar="LINE:COL")
    parser.add_argument("--hover", action="append", default=[], metavar="LINE:COL")
    parser.add_argument("--server", help="yaml-language-server's bin script (default: the one on PATH)")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for diagnostics")
    args = parser.parse_args()
    program = args.server or shutil.which("yaml-language-server")
    if program is None:
        print("editor-check: yaml-language-server not found; give --server PATH", file=sys.stderr)
        return 2
    command = [program, "--stdio"] if not program.endswith(".js") else ["node", program, "--stdio"]
    server = Server(command)
    uri = args.file.resolve().as_uri()
    try:
        server.request("initialize", {"processId": None, "rootUri": None, "capabilities": {
            "textDocument": {"completion": {"completionItem": {"documentationFormat": ["markdown"]}},
                             "hover": {"contentFormat": ["markdown"]}}}})
        server.notify("initialized", {})
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": args.file.read_text(encoding="utf-8")}})
        for d in server.wait_for_diagnostics(args.wait):
            start = d["range"]["start"]
            print(f"{args.file}:{start['line'] + 1}:{start['character'] + 1}: {d['message']}")
        def at(spot: str) -> dict[str, Any]:
            return {"textDocument": {"uri": uri}, "position": _position(spot)}

        for spot in args.complete:
            found = server.request("textDocument/completion", at(spot))
            items = found.get("items", []) if isinstance(found, dict) else found or []
            print(f"complete {spot}: {', '.join(item['label'] for item in items)}")
        for spot in args.hover:
            found = server.request("textDocument/hover", at(spot))
            text = found["contents"]["value"] if found else ""
            print(f"hover {spot}:\n  " + text.replace("\n", "\n  "))
    finally:
        server.process.kill()
        server.process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
