"""Finding the engine and conversion type for a task, in the registry's order of preference."""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import Iterable, Sequence

from mcv_pipelines.service.engines.base import ConversionType, Engine

__all__ = ["find_conversion", "forget_listing", "normalize_listing_format", "warm_listings"]

log = logging.getLogger(__name__)

_ALIASES = {
    "jpeg": "jpg", "tif": "tiff", "tgz": "tar.gz", "tbz2": "tar.bz2", "htm": "html", "yml": "yaml",
    "ndjson": "jsonl", "vcard": "vcf", "ical": "ics",
}  # fmt: skip


def normalize_listing_format(name: str) -> str:
    """A format as the listing spells it: lowercase, no dot, ``jpeg`` -> ``jpg``, ``tif`` -> ``tiff``."""
    lowered = name.strip().lower().lstrip(".")
    return _ALIASES.get(lowered, lowered)


class _Index:
    """One engine's listing by (operation, input format), each entry with its place in the listing."""

    def __init__(self, listing: Iterable[ConversionType]) -> None:
        self.by_input: dict[tuple[str, str], list[tuple[int, ConversionType]]] = {}
        for place, conversion in enumerate(listing):
            key = (conversion.operation, conversion.input_format)
            self.by_input.setdefault(key, []).append((place, conversion))

    def candidates(self, operation: str, source: str) -> list[tuple[int, ConversionType]]:
        """The entries taking ``source`` or any input, in the listing's order."""
        exact = self.by_input.get((operation, source), [])
        anything = self.by_input.get((operation, "any"), []) if source != "any" else []
        if exact and anything:
            return sorted(exact + anything, key=lambda entry: entry[0])
        return exact or anything


# An engine's listing depends on its program, its version and its modules, all fixed once the engine
# is made; walking it for every task cost ~10 ms of CPU (ffmpeg lists 4,515 conversions and
# ImageMagick builds its 2,350 again on each call), a quarter of a warm docx -> pdf job.
_INDEXES: weakref.WeakKeyDictionary[Engine, _Index] = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def _index(engine: Engine) -> _Index:
    with _INDEXES_LOCK:
        try:
            found = _INDEXES.get(engine)
        except TypeError:  # an engine that cannot be weakly referenced is indexed on every lookup
            return _Index(engine.conversion_types())
    if found is None:
        found = _Index(engine.conversion_types())
        with _INDEXES_LOCK:
            _INDEXES[engine] = found
    return found


def forget_listing(engine: Engine) -> None:
    """Index ``engine``'s listing again at its next lookup: what it converts has changed (Pandoc once
    it is given a printer for PDF)."""
    with _INDEXES_LOCK, contextlib.suppress(TypeError):
        _INDEXES.pop(engine, None)


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
    input format. Each engine's listing is indexed once (``forget_listing`` when it changes).

    >>> from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
    >>> found = find_conversion([ArchiveEngine()], "archive", "jpg", "zip")
    >>> found is not None and found[1].output_format
    'zip'
    """
    source = normalize_listing_format(input_format)
    target = None if output_format is None else normalize_listing_format(output_format)
    for candidate in engines:
        for _, conversion in _index(candidate).candidates(operation, source):
            # the listed engine name, not the class's: one command engine lists ffmpeg and imagemagick
            if engine is not None and conversion.engine != engine:
                continue
            if target is None:
                if conversion.output_format not in (source, "json", "any"):
                    continue
            elif conversion.output_format not in (target, "any"):
                continue
            return candidate, conversion
    return None


def warm_listings(engines: Sequence[Engine]) -> threading.Thread:
    """Build and index every engine's conversion listing on a background thread, now, so that the
    first task that looks one up does not wait for it: Pillow registers its plugins (~20 ms) and
    ffmpeg is asked for its formats (~0.3 s), and ``find_conversion`` reaches ffmpeg's listing on the
    way to LibreOffice's. A listing that fails here is left for the task to report."""

    def warm() -> None:
        for engine in engines:
            try:
                _index(engine)
            except Exception:  # the task that needs this engine meets the same error and reports it
                log.debug("listing the conversions of engine %s failed", engine.name, exc_info=True)

    thread = threading.Thread(target=warm, name="mcv-warm-engines", daemon=True)
    thread.start()
    return thread
