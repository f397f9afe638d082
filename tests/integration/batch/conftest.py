"""Each test runs in its own directory; ``remote`` is a LocalService on loopback that the batch reaches
through MCV_BASE_URL and MCV_API_KEY, as a remote service would be (its store is read to count jobs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import REMOTE_KEY

from mcv_pipelines.service.server import LocalService


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for var in ("MCV_API_KEY", "MCV_BASE_URL", "MCV_SYNC_URL", "MCV_REGION", "MCV_SANDBOX", "MCV_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MCV_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("MCV_DATA_DIR", str(tmp_path / "data"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def remote(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
           ) -> Iterator[LocalService]:
    faults = getattr(request, "param", None)
    with LocalService(data_dir=tmp_path / "remote", api_key=REMOTE_KEY, faults=faults) as service:
        monkeypatch.setenv("MCV_BASE_URL", service.base_url)
        monkeypatch.setenv("MCV_API_KEY", REMOTE_KEY)
        yield service
