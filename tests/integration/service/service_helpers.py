"""Helpers of the service integration tests (imported by name: pytest puts this folder on sys.path).

``TextEngine`` is a test double for the scheduler: it "converts" txt to md by copying (upper-casing
when asked), can sleep, and fails on demand, so job and task behaviour is tested without the real
engines.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)

__all__ = ["AltTextEngine", "Receiver", "TextEngine", "task_named", "upload", "wait_job"]


def wait_job(client: httpx.Client, job_id: str) -> dict[str, Any]:
    response = client.get(f"/sync/v2/jobs/{job_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def task_named(job: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [t for t in job["tasks"] if t["name"] == name]
    assert len(found) == 1, [t["name"] for t in job["tasks"]]
    return found[0]


def upload(form: dict[str, Any], content: bytes, filename: str = "in.txt") -> httpx.Response:
    """Post a file to an import/upload form the way clients do: every parameter, then ``file``."""
    return httpx.post(
        form["url"],
        data={k: str(v) for k, v in form["parameters"].items()},
        files={"file": (filename, content)},
    )


class Receiver:
    """A loopback HTTP server recording requests; answers with the queued statuses, then 200.

    GET answers ``files[path]`` (404 when absent); POST/PUT record (path, headers, body).
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.statuses: list[int] = []
        self.files: dict[str, bytes] = {}
        self.drop_next = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.requests.append((self.command, self.path, dict(self.headers.items()), body))

            def do_GET(self) -> None:
                self._record()
                content = receiver.files.get(self.path.split("?")[0])
                if content is None:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def do_POST(self) -> None:
                self._record()
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            do_PUT = do_POST

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[tuple[str, str, dict[str, str], bytes]]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.requests)


class TextEngine:
    """txt -> md (copy) with options ``sleep`` (seconds), ``fail`` (an error code), ``upper``, ``crash``."""

    name = "text"

    def version(self) -> str | None:
        return "1.0"

    def conversion_types(self) -> Iterable[ConversionType]:
        options = (
            OptionSpec("sleep", "float", 0.0),
            OptionSpec("upper", "boolean", False),
            OptionSpec("mode", "enum", "copy", possible_values=("copy", "upper")),
        )
        versions = (EngineVersion("1.0"),)
        yield ConversionType("convert", "txt", "md", "text", 2, options, versions, meta={"group": "text"})
        yield ConversionType("convert", "md", "txt", "text", 1, options, versions)
        yield ConversionType("merge", "txt", "pdf", "text", 1, options, versions)
        yield ConversionType("archive", "any", "zip", "text", 1)

    def run(self, request: EngineRequest) -> EngineResult:
        deadline = time.monotonic() + float(request.options.get("sleep") or 0)
        while time.monotonic() < deadline:
            if request.cancelled.is_set():
                raise EngineError("CANCELLED", "stopped")
            time.sleep(0.02)
        if request.options.get("fail"):
            raise EngineError(str(request.options["fail"]), "The text engine was told to fail.")
        if request.options.get("crash"):
            raise RuntimeError("engine bug")
        outputs = []
        for item in request.inputs:
            target = request.output_dir / (item.path.stem + "." + request.output_format)
            if request.options.get("upper"):
                target.write_text(item.path.read_text().upper())
            else:
                shutil.copyfile(item.path, target)
            outputs.append(target)
        return EngineResult(outputs, {"engine_note": "copied"})


class AltTextEngine(TextEngine):
    name = "text2"

    def conversion_types(self) -> Iterable[ConversionType]:
        yield ConversionType("convert", "txt", "md", "text2", 3)
