"""A local service with a small test engine, and an httpx client for it.

``TextEngine`` is a test double for the scheduler: it "converts" txt to md by copying (upper-casing
when asked), can sleep, and fails on demand, so job and task behaviour is tested without the real
engines.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
import pytest

from mcv_pipelines.local_service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.local_service.server import LocalService


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
