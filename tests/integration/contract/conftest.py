"""A local service for the contract tests: quick sync waits, no rate limit in the way, loopback only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine
from mcv_pipelines.service.server import LocalService

SETTINGS = {"sync_max_wait": 2.0, "rate_limit": 100_000, "webhook_backoff": (0.05, 0.05, 0.05)}


@pytest.fixture
def contract_service(tmp_path: Path) -> Iterator[LocalService]:
    """The engines that need no external program: the same on every machine, and quick."""
    with LocalService(
        data_dir=tmp_path / "data",
        engines=[PillowEngine(), PypdfEngine(), ArchiveEngine()],
        settings=SETTINGS,
    ) as service:
        yield service
