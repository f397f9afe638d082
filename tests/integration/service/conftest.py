"""A local service with the small test engines of service_helpers, and an httpx client for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_helpers import AltTextEngine, TextEngine

from mcv_pipelines.service.server import LocalService


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with LocalService(
        data_dir=tmp_path / "data",
        engines=[TextEngine(), AltTextEngine()],
        settings={"webhook_backoff": (0.05, 0.05, 0.05)},
    ) as svc:
        yield svc


@pytest.fixture
def client(service: LocalService) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=service.base_url, timeout=30.0, headers={"Authorization": f"Bearer {service.api_key}"}
    ) as c:
        yield c
