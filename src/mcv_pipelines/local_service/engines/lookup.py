"""Finding the engine and conversion type for a task, in the registry's order of preference."""

from __future__ import annotations

from collections.abc import Iterable

from mcv_pipelines.local_service.engines.base import ConversionType, Engine

__all__ = ["find_conversion", "normalize_listing_format"]

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

    >>> from mcv_pipelines.local_service.engines.archive import ArchiveEngine
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
