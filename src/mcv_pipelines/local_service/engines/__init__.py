"""Local engines and the one table that registers them.

``ENGINE_FACTORIES`` is the registry: every engine class the local service knows, in order of
preference (the first engine that can do a conversion type is its default). ``available_engines``
keeps those that can run on this machine, so the listing never advertises what cannot run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mcv_pipelines.local_service.engines.archive import ArchiveEngine
from mcv_pipelines.local_service.engines.base import Engine
from mcv_pipelines.local_service.engines.lookup import find_conversion
from mcv_pipelines.local_service.engines.pillow import PillowEngine
from mcv_pipelines.local_service.engines.pypdf_engine import PypdfEngine

__all__ = ["ENGINE_FACTORIES", "available_engines", "find_conversion"]

ENGINE_FACTORIES: tuple[Callable[[], Engine], ...] = (
    PillowEngine,
    PypdfEngine,
    ArchiveEngine,
)


def available_engines(factories: Sequence[Callable[[], Engine]] = ENGINE_FACTORIES) -> list[Engine]:
    """Instantiate every registered engine and keep those whose program or library is present."""
    engines = [factory() for factory in factories]
    return [engine for engine in engines if engine.version() is not None]
