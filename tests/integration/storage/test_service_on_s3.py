"""`mcv serve --storage s3://...` in a real process on a real S3 server (SeaweedFS): an upload, a
conversion and an export go through the store, the signed link streams the result out of it, an
expired link is refused, deleting the job empties the store, and the credentials show up nowhere."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import boto3
import httpx
import pytest
from PIL import Image

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.service.files.signing import file_url
from mcv_pipelines.service.server import LocalService
from seaweed import SeaweedS3

SIGNING_KEY = secrets.token_hex(32)


@dataclass
class Served:
    base_url: str
    api_key: str
    prefix: str
    process: subprocess.Popen[str]
    data_dir: Path

    def stop(self) -> str:
        """Stop the service; everything it printed (stdout and stderr)."""
        self.process.send_signal(signal.SIGINT)
        out, _ = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, out
        return out


@pytest.fixture
def served(seaweed: SeaweedS3, tmp_path: Path) -> Iterator[Served]:
    prefix = f"e2e-{secrets.token_hex(4)}"
    env = {**os.environ, **seaweed.env, "MCV_SIGNING_KEY": SIGNING_KEY}
    env.pop("AWS_ENDPOINT_URL")  # given as --s3-endpoint instead
    command = [
        sys.executable, "-m", "mcv_pipelines", "serve", "--port", "0", "--data-dir", str(tmp_path / "data"),
        "--storage", f"s3://{seaweed.bucket}/{prefix}", "--s3-endpoint", seaweed.endpoint,
        "--log-format", "json", "--allow-private-urls",  # import/url from this service's own link
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    lines: dict[str, str] = {}
    while "storage" not in lines:
        line = process.stdout.readline()
        assert line, f"mcv serve ended early: {lines}"
        if ":" in line and not line.startswith("{"):
            name, value = line.split(":", 1)
            lines[name] = value.strip()
    assert lines["storage"] == f"s3://{seaweed.bucket}/{prefix}"
    served = Served(lines["base URL"], lines["API key"], prefix, process, tmp_path / "data")
    try:
        yield served
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def stored_keys(seaweed: SeaweedS3, prefix: str) -> list[str]:
    client = boto3.client(
        "s3",
        endpoint_url=seaweed.endpoint,
        aws_access_key_id=seaweed.access_key,
        aws_secret_access_key=seaweed.secret_key,
        region_name="us-east-1",
    )
    try:
        answer = client.list_objects_v2(Bucket=seaweed.bucket, Prefix=prefix + "/")
        return sorted(item["Key"] for item in answer.get("Contents", []))
    finally:
        client.close()


def noisy_png(path: Path) -> None:
    """A PNG of random pixels: about 9 MiB, more than one multipart part of the store."""
    Image.frombytes("RGB", (1800, 1700), os.urandom(1800 * 1700 * 3)).save(path, compress_level=1)


def test_upload_convert_export_through_an_s3_store(
    served: Served, seaweed: SeaweedS3, tmp_path: Path
) -> None:
    source = tmp_path / "noise.png"
    noisy_png(source)
    assert source.stat().st_size > 8 * 1024 * 1024
    output = asyncio.run(_convert(served, source, tmp_path / "out"))

    with Image.open(output) as image:  # the conversion's result, streamed out of the store
        assert (image.format, image.size) == ("JPEG", (1800, 1700))
    keys = stored_keys(seaweed, served.prefix)
    names = sorted(key.rsplit("/", 1)[-1] for key in keys)
    # convert's output and export's copy, then import/url's download and its export
    assert names == ["again.jpg", "again.jpg", "noise.jpg", "noise.jpg", "noise.png"]
    assert not any((served.data_dir / "tasks").iterdir())  # the data dir kept no task's files
    assert not any((served.data_dir / "work").iterdir())

    printed = served.stop()
    assert seaweed.secret_key not in printed
    assert seaweed.access_key not in printed


async def _convert(served: Served, source: Path, out_dir: Path) -> Path:
    settings = Settings(base_url=served.base_url, api_key=served.api_key)
    async with ApiClient(settings) as api:
        job = await api.create_job(
            {
                "in": {"operation": "import/upload"},
                "jpg": {"operation": "convert", "input": "in", "output_format": "jpg"},
                "out": {"operation": "export/url", "input": "jpg"},
            }
        )
        upload = next(t for t in job.tasks if t.name == "in")
        await api.upload_file(upload, source)
        done = await api.wait_job(job.id, max_wait=120)
        assert done.status == "finished", [(t.name, t.code, t.message) for t in done.tasks]
        export = next(t for t in done.tasks if t.name == "out")
        assert export.result is not None
        (link,) = export.result.files
        assert link.url is not None
        path = await api.download_file(link, out_dir)

        # a range of the stored file, and an expired link to it
        async with httpx.AsyncClient() as http:
            first = await http.get(link.url, headers={"Range": "bytes=0-2"})
            assert (first.status_code, first.content) == (206, b"\xff\xd8\xff")
            assert first.headers["content-range"] == f"bytes 0-2/{path.stat().st_size}"
            head = await http.head(link.url)
            assert (head.status_code, head.content) == (200, b"")
            assert head.headers["content-length"] == str(path.stat().st_size)
            beyond = await http.get(link.url, headers={"Range": f"bytes={path.stat().st_size}-"})
            assert beyond.status_code == 416

            expired = file_url(SIGNING_KEY.encode(), served.base_url, export.id, link.filename, -5, False)
            refused = await http.get(expired)
            assert refused.status_code == 403
            assert refused.json()["code"] == "LINK_EXPIRED"

        # import/url streams its download straight into the store
        again = await api.create_job(
            {
                "fetch": {"operation": "import/url", "url": link.url, "filename": "again.jpg"},
                "out": {"operation": "export/url", "input": "fetch"},
            }
        )
        again = await api.wait_job(again.id, max_wait=60)
        assert again.status == "finished", [(t.name, t.code, t.message) for t in again.tasks]
        fetched = next(t for t in again.tasks if t.name == "fetch")
        assert fetched.result is not None
        expected = hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()
        assert fetched.result.files[0].md5 == expected
        out = next(t for t in again.tasks if t.name == "out")
        assert out.result is not None
        copy = await api.download_file(out.result.files[0], out_dir / "again")
        assert copy.read_bytes() == path.read_bytes()
        return path


def test_deleting_a_job_deletes_its_stored_files(served: Served, seaweed: SeaweedS3) -> None:
    png = io.BytesIO()
    Image.new("RGB", (40, 30), "red").save(png, "PNG")

    async def run() -> None:
        settings = Settings(base_url=served.base_url, api_key=served.api_key)
        async with ApiClient(settings) as api:
            job = await api.create_job(
                {
                    "in": {
                        "operation": "import/base64",
                        "file": base64.b64encode(png.getvalue()).decode(),
                        "filename": "red.png",
                    },
                    "out": {"operation": "export/url", "input": "in"},
                }
            )
            done = await api.wait_job(job.id, max_wait=60)
            assert done.status == "finished"
            assert len(stored_keys(seaweed, served.prefix)) == 2
            await api.delete_job(job.id)

    asyncio.run(run())
    assert stored_keys(seaweed, served.prefix) == []
    assert seaweed.secret_key not in served.stop()


def test_a_store_that_refuses_fails_the_task_and_names_no_secret(
    s3_env: SeaweedS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A secret key the store does not know: it refuses every write (403, never tried again). Not a
    # missing bucket: SeaweedFS makes one on the first write, once it has room for its volumes.
    wrong = "wrong-" + secrets.token_urlsafe(24)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", wrong)
    settings = {"storage": f"s3://{s3_env.bucket}/x", "storage_retry": 0.0}
    with LocalService(data_dir=tmp_path / "data", engines=[], settings=settings) as service:
        assert service.storage.ping() is False
        auth = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=auth, timeout=30) as http:
            task = {"file": "some text", "filename": "a.txt"}
            created = http.post("/v2/import/raw", json=task).json()["data"]
            done = http.get(f"/sync/v2/tasks/{created['id']}").json()["data"]
    assert done["status"] == "error"
    assert done["code"] == "STORAGE_FAILED"
    assert f"s3://{s3_env.bucket}/x/tasks/" in done["message"]
    assert wrong not in str(done)
    assert s3_env.secret_key not in str(done)
