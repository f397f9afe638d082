"""Finding the engine and conversion type for a task, in the registry's order of preference."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence

from mcv_pipelines.service.engines.base import ConversionType, Engine

__all__ = ["find_conversion", "normalize_listing_format", "warm_listings"]

log = logging.getLogger(__name__)

_ALIASES = {"jpeg": "jpg", "tif": "tiff", "tgz": "tar.gz", "tbz2": "tar.bz2", "htm": "html"}


def normalize_listing_format(name: str) -> str:
    """A format as the listing spells it: lowercase, no dot, ``jpeg`` -> ``jpg``, ``tif`` -> ``tiff``."""
    lowered = name.strip().lower().lstrip(".")
    return _ALIASES.get(lowered, lowered)


def find_conversion(
    engines: Iterable[Engine],
    operation: str,
    input_format: str,
    output_format: str | None,
    engine: str | None = None,
) -> tuple[Engine, ConversionType] | None:
    """The first engine (or the one listing it under ``engine``) that runs this conversion, with its type.

    ``output_format`` None matches the operations whose output follows the input (optimize,
    watermark, metadata/write) and ``metadata`` (json). An engine listing input ``any`` matches every
    input format.

    >>> from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
    >>> found = find_conversion([ArchiveEngine()], "archive", "jpg", "zip")
    >>> found is not None and found[1].output_format
    'zip'
    """
    source = normalize_listing_format(input_format)
    target = None if output_format is None else normalize_listing_format(output_format)
    for candidate in engines:
        for conversion in candidate.conversion_types():
            # the listed engine name, not the class's: one command engine lists ffmpeg and imagemagick
            if conversion.operation != operation or (engine is not None and conversion.engine != engine):
                continue
            if conversion.input_format not in (source, "any"):
                continue
            if target is None:
                if conversion.output_format not in (source, "json", "any"):
                    continue
            elif conversion.output_format not in (target, "any"):
                continue
            return candidate, conversion
    return None


def warm_listings(engines: Sequence[Engine]) -> threading.Thread:
    """Build every engine's conversion listing on a background thread, now, so that the first task
    that looks one up does not wait for it: Pillow registers its plugins (~20 ms) and ffmpeg is asked
    for its formats (~0.3 s), and ``find_conversion`` reaches ffmpeg's listing on the way to
    LibreOffice's. A listing that fails here is left for the task to report."""

    def warm() -> None:
        for engine in engines:
            try:
                for _ in engine.conversion_types():
                    pass
            except Exception:  # the task that needs this engine meets the same error and reports it
                log.debug("listing the conversions of engine %s failed", engine.name, exc_info=True)

    thread = threading.Thread(target=warm, name="mcv-warm-engines", daemon=True)
    thread.start()
    return thread
