"""Helpers of the `mcv run` integration tests (imported by name: pytest puts this folder on sys.path).

``SlowTextEngine`` converts txt to md, sleeping ``sleep`` seconds (reporting its progress meanwhile)
or failing with ``fail``: a slow or failing task without depending on the real engines' timing.
``Faulty`` wraps the real transport to produce the network faults a real server will not: a redirecting
upload host, a download cut in the middle, the answer to the job's creation lost after the service handled it.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import httpx

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)

__all__ = [
    "REMOTE_KEY",
    "REPO",
    "SLOW_PIPELINE",
    "Faulty",
    "SlowTextEngine",
    "asset",
    "pipeline",
    "write_slow_pipeline",
]

REPO = Path(__file__).resolve().parents[3]
REMOTE_KEY = "sk-remote-test-key-5e1f0c2b9a7d"


def asset(name: str) -> str:
    return str(REPO / "pipelines" / "assets" / name)


def pipeline(name: str) -> str:
    return str(REPO / "pipelines" / f"{name}.yaml")


SLOW_PIPELINE = """\
version: 1
name: slow
params:
  text: {type: string}
  sleep: {type: number, default: 0}
  fail: {type: string, default: ""}
job:
  tag: slow-text
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.text }}"
  md:
    operation: convert
    input: source
    input_format: txt
    output_format: md
    sleep: "{{ params.sleep }}"
    fail: "{{ params.fail }}"
  publish:
    operation: export/url
    input: md
    download_to: out/slow/
"""


def write_slow_pipeline(directory: Path) -> tuple[Path, Path]:
    """The slow pipeline and a text file for it, in ``directory``."""
    pipeline = directory / "slow.yaml"
    pipeline.write_text(SLOW_PIPELINE)
    text = directory / "note.txt"
    text.write_text("hello from a test\n" * 100)
    return pipeline, text


class SlowTextEngine:
    name = "slowtext"

    def version(self) -> str | None:
        return "1.0"

    def conversion_types(self) -> Iterable[ConversionType]:
        options = (OptionSpec("sleep", "float", 0.0), OptionSpec("fail", "string", ""))
        yield ConversionType("convert", "txt", "md", "slowtext", 1, options, (EngineVersion("1.0"),))

    def run(self, request: EngineRequest) -> EngineResult:
        sleep = float(request.options.get("sleep") or 0)
        started = time.monotonic()
        while (spent := time.monotonic() - started) < sleep:
            if request.cancelled.is_set():
                raise EngineError("CANCELLED", "stopped")
            request.progress(100 * spent / sleep)  # as a real engine does: the service throttles it
            time.sleep(0.02)
        if request.options.get("fail"):
            raise EngineError(str(request.options["fail"]), "The slow text engine was told to fail.")
        outputs = []
        for item in request.inputs:
            target = request.output_dir / (item.path.stem + ".md")
            shutil.copyfile(item.path, target)
            outputs.append(target)
        return EngineResult(outputs, {})


class _CutStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.Response, keep: int) -> None:
        self.inner = inner
        self.keep = keep

    async def __aiter__(self) -> AsyncIterator[bytes]:
        sent = 0
        async for chunk in self.inner.aiter_raw():
            if sent + len(chunk) >= self.keep:
                yield chunk[: self.keep - sent]
                raise httpx.ReadError("connection dropped by the test")
            sent += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class Faulty(httpx.AsyncBaseTransport):
    """The real transport, with faults switched on per kind; counts what it did."""

    def __init__(
        self, *, redirect_uploads: bool = False, cut_downloads: bool = False, lose_create: bool = False
    ):
        self.inner = httpx.AsyncHTTPTransport()
        self.redirect_uploads = redirect_uploads
        self.cut_downloads = cut_downloads
        self.lose_create = lose_create
        self.redirected: list[str] = []
        self.cut: list[str] = []
        self.lost: list[str] = []
        self.creates = 0
        self.ranges: list[str] = []
        self.statuses: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        path = request.url.path
        if (
            self.redirect_uploads
            and request.method == "POST"
            and "/upload" in path
            and url not in self.redirected
        ):
            self.redirected.append(url)
            await request.aread()
            return httpx.Response(307, headers={"location": url}, request=request)
        if request.method == "POST" and path.endswith("/v2/jobs"):
            self.creates += 1
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and path.endswith("/v2/jobs") and self.lose_create and not self.lost:
            await response.aread()  # the service has handled it; the answer never arrives
            self.lost.append(url)
            raise httpx.ReadError("answer lost by the test")
        self.statuses.append(response.status_code)
        if "range" in request.headers:
            self.ranges.append(request.headers["range"])
        cut = self.cut_downloads and request.method == "GET" and "/files/" in path and url not in self.cut
        if cut and response.status_code == 200:
            self.cut.append(url)
            length = int(response.headers.get("content-length", "0"))
            return httpx.Response(
                200,
                headers=response.headers,
                stream=_CutStream(response, max(1, length // 2)),
                request=request,
            )
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
