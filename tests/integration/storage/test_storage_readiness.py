"""/readyz follows the file store too: 503 naming `storage` while the S3 server is down, 200 again once
it is back at the same address, without restarting the service."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from mcv_pipelines.service.server import LocalService
from seaweed import SeaweedS3, need_weed


def _ready(base: str) -> httpx.Response:
    return httpx.get(f"{base}/readyz", timeout=30)


def test_readyz_names_the_store_while_s3_is_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = SeaweedS3(need_weed(), tmp_path / "s3", bucket="ready-test").start()
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        settings = {"storage": "s3://ready-test/files", "s3_endpoint": server.endpoint}
        with LocalService(data_dir=tmp_path / "data", settings=settings) as service:
            up = _ready(service.base_url)
            assert up.status_code == 200
            assert up.json()["checks"] == {"database": "ok", "storage": "ok"}

            server.stop()
            down = _ready(service.base_url)
            assert down.status_code == 503
            assert down.json()["checks"] == {"database": "ok", "storage": "failed"}
            (failed,) = down.json()["failed"]
            assert failed["check"] == "storage"
            assert "s3://ready-test/files" in failed["reason"]
            assert server.secret_key not in down.text
            assert httpx.get(f"{service.base_url}/healthz").status_code == 200  # alive, only not ready

            server.start()
            deadline = time.monotonic() + 30
            while _ready(service.base_url).status_code != 200:
                assert time.monotonic() < deadline, "/readyz did not recover once S3 was back"
                time.sleep(0.2)
    finally:
        server.stop()
