"""`mcv serve` builds the engines' conversion listings at start, in the background, so that its first
job does not wait for Pillow's plugins or ffmpeg's format probe."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import ConversionType, EngineRequest, EngineResult
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.image.pillow_listing import pillow_conversion_types
from mcv_pipelines.service.engines.lookup import warm_listings


class _Listing:
    def __init__(self, name: str, fail: bool = False) -> None:
        self.name = name
        self.fail = fail
        self.listed_on: list[str] = []

    def version(self) -> str | None:
        return "1.0"

    def conversion_types(self) -> Iterable[ConversionType]:
        self.listed_on.append(threading.current_thread().name)
        if self.fail:
            raise RuntimeError("the program would not say its formats")
        yield ConversionType("convert", "a", "b", self.name)

    def run(self, request: EngineRequest) -> EngineResult:
        raise NotImplementedError


def test_every_engine_is_listed_off_the_callers_thread_and_a_failing_one_stops_none() -> None:
    broken, fine = _Listing("broken", fail=True), _Listing("fine")
    thread = warm_listings([broken, fine])
    thread.join(10)
    assert not thread.is_alive()
    assert broken.listed_on == ["mcv-warm-engines"]
    assert fine.listed_on == ["mcv-warm-engines"]


def test_the_pillow_listing_is_ready_after_the_warm_up() -> None:
    pillow_conversion_types.cache_clear()
    warm_listings([PillowEngine()]).join(30)
    assert pillow_conversion_types.cache_info().currsize == 1
