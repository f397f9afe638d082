"""Local engines and the one table that registers them.

``ENGINE_FACTORIES`` is the registry: every engine class the local service knows, in order of
preference (the first engine that can do a conversion type is its default). ``available_engines``
keeps those that can run on this machine, so the listing never advertises what cannot run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mcv_pipelines.local_service.engines.base import ConversionType, Engine

__all__ = ["ENGINE_FACTORIES", "available_engines", "choose_engine"]

ENGINE_FACTORIES: tuple[Callable[[], Engine], ...] = ()


def available_engines(factories: Sequence[Callable[[], Engine]] = ENGINE_FACTORIES) -> list[Engine]:
    """Instantiate every registered engine and keep those whose program or library is present."""
    engines = [factory() for factory in factories]
    return [engine for engine in engines if engine.version() is not None]


def choose_engine(
    engines: Sequence[Engine],
    operation: str,
    input_format: str,
    output_format: str,
    engine: str | None = None,
) -> tuple[Engine, ConversionType] | None:
    """The engine (the first in table order, or the one named) that runs this conversion type.

    ``engine`` is matched against the conversion type's engine, the name the listing shows (a command
    engine may list several, e.g. ffmpeg and imagemagick). ``any`` formats match every format.
    """
    for candidate in engines:
        for kind in candidate.conversion_types():
            if (
                kind.operation == operation
                and (not engine or kind.engine == engine)
                and kind.input_format in (input_format, "any")
                and kind.output_format in (output_format, "any")
            ):
                return candidate, kind
    return None
