"""Helpers of the `mcv batch` integration tests (imported by name: pytest puts this folder on sys.path).

``WEBP_PIPELINE`` converts one small PNG to webp with a name that depends on the row, so rows never
collide; ``make_images`` writes tiny PNGs and a CSV manifest naming them.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from PIL import Image

__all__ = [
    "BLOBS_PIPELINE",
    "REMOTE_KEY",
    "WEBP_PIPELINE",
    "LoseCreateAnswers",
    "assert_images",
    "jobs_by_row",
    "make_images",
    "read_jsonl",
    "service_jobs",
    "submissions_by_output",
    "write_pipeline",
]

REMOTE_KEY = "sk-batch-test-key-81c2d4e6f0a1"

WEBP_PIPELINE = """\
version: 1
name: to-webp
params:
  image: {type: string}
  quality: {type: integer, default: 80, minimum: 1, maximum: 100}
  token: {type: string, default: "", secret: true}
job:
  tag: webp
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  convert:
    operation: convert
    input: source
    output_format: webp
    quality: "{{ params.quality }}"
    filename: "{{ params.image | stem }}.webp"
  publish:
    operation: export/url
    input: convert
    download_to: "out/"
"""


BLOBS_PIPELINE = """\
version: 1
name: blobs
params:
  file: {type: string}
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.file }}"
  publish:
    operation: export/url
    input: source
    download_to: "out/"
"""
"""A row's file downloaded as it was sent: bytes to compare."""


def write_pipeline(directory: Path, text: str = WEBP_PIPELINE) -> Path:
    path = directory / "webp.yaml"
    path.write_text(text)
    return path


def make_images(directory: Path, count: int, *, manifest: str = "rows.csv",
                extra: dict[int, dict[str, str]] | None = None) -> Path:
    """``count`` 6x6 PNGs under ``directory/img`` and a CSV manifest (image, quality[, token])."""
    images = directory / "img"
    images.mkdir(exist_ok=True)
    lines = ["image,quality,token"]
    for i in range(count):
        name = f"img/p{i:04d}.png"
        Image.new("RGB", (6, 6), (i % 256, (i * 7) % 256, 90)).save(directory / name)
        cells = {"image": name, "quality": str(40 + i % 50), "token": ""}
        cells.update((extra or {}).get(i + 1, {}))
        lines.append(",".join(cells[c] for c in ("image", "quality", "token")))
    path = directory / manifest
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_images(out: Path, count: int) -> None:
    """Every expected webp is present, whole and decodable."""
    for i in range(count):
        path = out / f"p{i:04d}.webp"
        assert path.is_file(), f"{path} missing"
        with Image.open(path) as image:
            assert image.format == "WEBP"
            image.load()
            assert image.size == (6, 6)


def service_jobs(data_dir: Path) -> list[tuple[str, str, str]]:
    """(id, tag, status) of every job in the service's store."""
    db = sqlite3.connect(f"file:{data_dir / 'service.sqlite3'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT id, tag, status FROM jobs").fetchall()
    finally:
        db.close()


def jobs_by_row(data_dir: Path) -> Counter[str]:
    """Jobs per row: attempt tags are ``webp~mcv-<batch>-<key hash>-<attempt>``; the row is the part
    without the attempt."""
    found: Counter[str] = Counter()
    for _, tag, _ in service_jobs(data_dir):
        assert tag
        assert tag.startswith("webp~mcv-"), tag
        found[tag.rsplit("-", 1)[0]] += 1
    return found


def submissions_by_output(data_dir: Path) -> Counter[str]:
    """How many times the service was given each row's conversion, in any job: the ``filename`` of
    every convert task it stores (each row names its own output), packed jobs or not."""
    db = sqlite3.connect(f"file:{data_dir / 'service.sqlite3'}?mode=ro", uri=True)
    try:
        docs = [json.loads(doc) for (doc,) in db.execute("SELECT doc FROM tasks WHERE operation='convert'")]
    finally:
        db.close()
    return Counter(str(doc["payload"]["filename"]) for doc in docs)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class LoseCreateAnswers(httpx.AsyncBaseTransport):
    """The real transport, losing the answer of every ``every``-th job creation after the service
    handled it (the job exists; the client sees a dropped connection)."""

    def __init__(self, every: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.every = every
        self.creates = 0
        self.lost = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        creating = request.method == "POST" and request.url.path.endswith("/v2/jobs")
        response = await self.inner.handle_async_request(request)
        if creating:
            self.creates += 1
            if self.creates % self.every == 0:
                await response.aread()
                self.lost += 1
                raise httpx.ReadError("answer lost by the test")
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
