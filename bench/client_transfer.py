"""Memory and speed of the client's streamed upload and download (loopback-free: in-process transports).

    .venv/bin/python bench/client_transfer.py [SIZE_MIB]

Prints a table: bytes moved, seconds, MiB/s and the peak Python memory (tracemalloc) of each direction.
The peak should stay near the chunk size whatever the file size: nothing holds a whole file.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from mcv_pipelines.api import ApiClient, Settings, UploadForm

CHUNK = 1024 * 1024


class Sink(httpx.AsyncBaseTransport):
    """Consumes request bodies chunk by chunk and serves a generated file of ``size`` bytes."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.received = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            assert isinstance(request.stream, httpx.AsyncByteStream)
            async for chunk in request.stream:
                self.received += len(chunk)
            return httpx.Response(201)
        return httpx.Response(200, headers={"Content-Length": str(self.size)}, stream=Generated(self.size))


class Generated(httpx.AsyncByteStream):
    def __init__(self, size: int) -> None:
        self.size = size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        block = b"\0" * CHUNK
        left = self.size
        while left:
            n = min(left, CHUNK)
            yield block[:n]
            left -= n


async def measure(size: int, workdir: Path) -> list[tuple[str, int, float, int]]:
    source = workdir / "big.bin"
    with source.open("wb") as fh:
        fh.truncate(size)  # sparse: creating it costs nothing
    sink = Sink(size)
    settings = Settings.build(api_key=None, base_url="http://127.0.0.1:1")
    rows = []
    form = UploadForm("http://127.0.0.1:1/upload", (("k", "v"),))
    async with ApiClient(settings, transport=sink) as client:
        for name, job in (
            ("upload", lambda: client.upload_file(form, source)),
            ("download", lambda: client.download("http://127.0.0.1:1/f", workdir / "out.bin")),
        ):
            tracemalloc.start()
            started = time.perf_counter()
            await job()
            seconds = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            rows.append((name, size, seconds, peak))
    assert sink.received > size
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("size_mib", nargs="?", type=int, default=256, help="MiB moved each way (default 256)")
    size = parser.parse_args().size_mib * 1024 * 1024
    with tempfile.TemporaryDirectory() as tmp:
        rows = asyncio.run(measure(size, Path(tmp)))
    print(f"{'direction':<10} {'MiB':>8} {'seconds':>9} {'MiB/s':>9} {'peak MiB':>9}")
    for name, moved, seconds, peak in rows:
        mib = moved / 2**20
        print(f"{name:<10} {mib:>8.0f} {seconds:>9.2f} {mib / seconds:>9.0f} {peak / 2**20:>9.2f}")


if __name__ == "__main__":
    main()
