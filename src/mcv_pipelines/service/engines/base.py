"""The protocol every local engine implements, and the values that cross it.

An engine states which conversion types it can run (``conversion_types``), which is what the operations
listing advertises, and runs one task at a time (``run``) on files already on disk, writing its output
files into ``request.output_dir``. Engines know nothing of HTTP, jobs or storage; the scheduler calls
them from a worker thread.

Conventions for the listing (one ``ConversionType`` per operation, input format, output format, engine):

- convert, thumbnail: concrete formats (``jpg`` -> ``webp``); formats are lowercase extensions without a
  dot (``jpg``, not ``jpeg``; ``tar.gz``).
- optimize, watermark, metadata/write: output_format equals input_format.
- metadata: output_format ``json`` (the result carries ``metadata``; no file is produced).
- merge: one type per mergeable input format, output_format ``pdf``.
- archive: input_format ``any``; output_format ``zip``, ``7z``, ``tar``, ``tar.gz``, ``tar.bz2``, ...
- capture-website: input_format ``website``; output_format ``pdf``, ``png``, ``jpg``.
- command: input_format ``any``, output_format ``any``; engine ``ffmpeg``, ``imagemagick`` or
  ``graphicsmagick``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from mcv_pipelines.service.engines.url_guard import UrlGuard

__all__ = [
    "ConversionType",
    "Engine",
    "EngineError",
    "EngineRequest",
    "EngineResult",
    "EngineVersion",
    "InputFile",
    "OptionSpec",
    "OptionType",
]

OptionType = Literal["string", "boolean", "integer", "float", "enum", "dictionary"]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a conversion type, as the listing shows it."""

    name: str
    type: OptionType
    default: Any = None
    possible_values: tuple[Any, ...] | None = None  # for type "enum"
    description: str | None = None


@dataclass(frozen=True, slots=True)
class EngineVersion:
    version: str
    default: bool = True
    latest: bool = True
    deprecated: bool = False
    experimental: bool = False


@dataclass(frozen=True, slots=True)
class ConversionType:
    """One entry of GET /v2/operations."""

    operation: str
    input_format: str
    output_format: str
    engine: str
    credits: int = 1
    options: tuple[OptionSpec, ...] = ()
    engine_versions: tuple[EngineVersion, ...] = ()
    deprecated: bool = False
    experimental: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class InputFile:
    """A file produced by an input task; ``task_name`` is that task's name in the job."""

    task_name: str
    path: Path


def _no_progress(percent: float) -> None:
    del percent


@dataclass(slots=True)
class EngineRequest:
    """One task for an engine to run.

    ``options`` is the task's payload as submitted (``input`` removed), so engine options such as
    ``width`` or ``quality`` are read from it directly. ``cancelled`` is set when the task is cancelled
    or times out; long-running engines check it (or kill their child process when it is set).
    ``work_dir`` is scratch space that does not exist yet: an engine that needs it creates it
    (``mkdir(parents=True, exist_ok=True)``); it is removed after the run either way.
    ``progress`` takes the task's percent done (0-100) as the engine learns it (ffmpeg's -progress,
    pages rendered, stages passed); the caller throttles and stores it, so calling it often is cheap.
    ``url_guard`` is the service's guard of import/url, for engines that make requests of their own.
    """

    operation: str
    input_format: str
    output_format: str
    options: Mapping[str, Any]
    inputs: Sequence[InputFile]
    output_dir: Path
    work_dir: Path
    timeout: float | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    progress: Callable[[float], None] = field(default=_no_progress)
    url_guard: UrlGuard | None = None  # what an engine that fetches (Chromium) may reach; None: any


@dataclass(slots=True)
class EngineResult:
    """What a run produced: files in ``output_dir`` and extra result fields (``metadata``, ``output``)."""

    files: list[Path] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class EngineError(Exception):
    """A task failed for a reason the user can act on; ``code`` becomes the task's ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Engine(Protocol):
    """A local engine. ``version()`` returns None when the engine cannot run on this machine."""

    name: str

    def version(self) -> str | None: ...

    def conversion_types(self) -> Iterable[ConversionType]: ...

    def run(self, request: EngineRequest) -> EngineResult: ...
