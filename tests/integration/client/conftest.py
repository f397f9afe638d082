"""The ApiClient against a real LocalService on loopback (core engines only: quick to start)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from client_helpers import client_for

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine
from mcv_pipelines.service.server import LocalService


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with LocalService(
        data_dir=tmp_path / "data", engines=[PillowEngine(), PypdfEngine(), ArchiveEngine()]
    ) as svc:
        yield svc


@pytest.fixture
async def api(service: LocalService) -> AsyncIterator[ApiClient]:
    async with client_for(service) as client:
        yield client
