"""Office documents, spreadsheets, presentations and drawings with warm LibreOffice processes.

Conversions run on an ``OfficePool`` (pool.py): long-running soffice processes driven over UNO by a
helper under the system Python (uno_bridge.py), started on first use, one per task running at once.
The listing is LibreOffice's filter matrix (formats.py), per module installed; options where the
filters take them: ``page_range``, ``pdf_a`` and ``quality`` for PDF, ``sheet`` for csv/tsv,
``slide_range``, ``width`` and ``quality`` for a picture per slide or page.
"""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import hide_paths
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.office.formats import MODULES, Module, Writer
from mcv_pipelines.service.engines.office.pool import DEFAULT_MEMORY_BOUND, OfficePool
from mcv_pipelines.service.engines.options import FILENAME, bool_option, int_option, str_option
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.program_engine import ProgramEngine

__all__ = ["LibreOfficeEngine"]

_PDF_OPTIONS = (
    OptionSpec("page_range", "string", None, None, "Pages to export, such as '1-3'"),
    OptionSpec("pdf_a", "boolean", False, None, "Write PDF/A-2b"),
    OptionSpec("quality", "integer", 90, None, "JPEG quality (1-100) of the pictures in the PDF"),
)
_SHEET = (OptionSpec("sheet", "integer", 1, None, "Which sheet (1 = the first) to write"),)
_PICTURE_OPTIONS = (
    OptionSpec("slide_range", "string", None, None, "Slides or pages to write, such as '2' or '1-3'"),
    OptionSpec("width", "integer", None, None, "Width of each picture in pixels"),
    OptionSpec("quality", "integer", 90, None, "JPEG quality (1-100)"),
)
_RANGE = re.compile(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?")
# The system Python, where Debian's python3-uno installs ``uno`` (the service's venv cannot import it).
UNO_PYTHON = "/usr/bin/python3"


def _options(writer: Writer, output_format: str) -> tuple[OptionSpec, ...]:
    if writer.pdf:
        return (*_PDF_OPTIONS, FILENAME)
    if writer.media_type:
        return (*_PICTURE_OPTIONS, FILENAME)
    return (*_SHEET, FILENAME) if output_format in ("csv", "tsv") else (FILENAME,)


class LibreOfficeEngine(ProgramEngine):
    name = "libreoffice"
    programs = ("soffice", "libreoffice")
    version_args = ("--headless", "--version")
    version_pattern = r"LibreOffice (\d[\w.]*)"
    version_timeout = 60  # the first start of a profile is slow

    def __init__(
        self,
        max_conversions: int = 200,
        keep_warm: int = 1,
        idle_seconds: float = 60.0,
        memory_bound: int = DEFAULT_MEMORY_BOUND,
    ) -> None:
        super().__init__()
        self.max_conversions = max_conversions
        self.memory_bound = memory_bound
        self.keep_warm = keep_warm
        self.idle_seconds = idle_seconds
        self._pool: OfficePool | None = None
        self._pool_lock = threading.Lock()

    def version(self) -> str | None:
        return self._version if self._has_uno else None

    @functools.cached_property
    def _has_uno(self) -> bool:
        """The warm pool needs ``uno`` under the system Python (Debian's python3-uno)."""
        if self.program is None or not Path(UNO_PYTHON).exists():
            return False
        outcome = run_program([UNO_PYTHON, "-I", "-c", "import uno"], timeout=30)
        return outcome.returncode == 0

    @property
    def pool(self) -> OfficePool:
        """The warm processes, made on first use (and again after ``close``)."""
        assert self.program is not None
        with self._pool_lock:
            if self._pool is None:
                self._pool = OfficePool(
                    self.program,
                    UNO_PYTHON,
                    max_conversions=self.max_conversions,
                    keep_warm=self.keep_warm,
                    idle_seconds=self.idle_seconds,
                    memory_bound=self.memory_bound,
                )
            return self._pool

    @functools.cached_property
    def _modules(self) -> list[Module]:
        assert self.program is not None
        program_dir = Path(self.program).resolve().parent
        return [module for module in MODULES if (program_dir / module.library).exists()]

    def _pairs(self) -> dict[tuple[str, str], Module]:
        pairs: dict[tuple[str, str], Module] = {}
        for module in self._modules:
            for source in module.readers:
                for target in module.targets(source):
                    pairs.setdefault((source, target), module)
        return pairs

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", source, target, self.name,
                           options=_options(module.writers[target], target), engine_versions=versions)
            for (source, target), module in self._pairs().items()
        ]  # fmt: skip

    def run(self, request: EngineRequest) -> EngineResult:
        module = self._pairs().get((request.input_format, request.output_format))
        if request.operation != "convert" or module is None or self.version() is None:
            pair = f"{request.input_format} to {request.output_format}"
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"libreoffice here does not {request.operation} {pair}"
            )
        source = single_input(request)
        staging = request.work_dir.resolve() / "libreoffice"  # UNO wants absolute file URLs
        in_dir, out_dir = staging / "in", staging / "out"
        in_dir.mkdir(parents=True, exist_ok=True)
        out_dir.mkdir(exist_ok=True)
        # LibreOffice picks the import filter partly by extension: give it the declared one.
        stem = "document"
        staged = in_dir / f"{stem}.{request.input_format}"
        shutil.copyfile(source, staged)
        writer = module.writers[request.output_format]
        job = _job(request, module, writer, staged, out_dir / f"{stem}.{request.output_format}")
        request.progress(10)
        try:
            answer = self.pool.convert(job, request.timeout, request.cancelled)
        except EngineError as exc:
            raise EngineError(exc.code, f"converting {source.name}: {exc.message}") from exc
        if not answer.get("ok"):
            raise _failure(answer, source.name, request.input_format)
        produced = [Path(name) for name in answer.get("files", [])]
        if not produced or not all(path.is_file() and path.stat().st_size > 0 for path in produced):
            raise EngineError(
                "CONVERSION_FAILED", f"LibreOffice wrote no {request.output_format} for {source.name}"
            )
        request.progress(90)
        several = writer.media_type is not None
        first = int(job.get("first") or 1)  # pictures are numbered by their slide or page
        files = []
        for index, path in enumerate(produced, start=first):
            target = output_path(request, request.output_format, index if several else None)
            shutil.move(path, target)
            files.append(target)
        return EngineResult(files=files)

    def close(self) -> None:
        """Stop the warm processes (the service calls this when it stops)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None  # a later conversion starts a fresh pool
        if pool is not None:
            pool.close()


def _failure(answer: dict[str, Any], name: str, input_format: str) -> EngineError:
    code = str(answer.get("code") or "CONVERSION_FAILED")
    if code == "INVALID_INPUT":
        return EngineError(code, f"LibreOffice could not open {name} as a {input_format} document")
    if code == "OFFICE_GONE":
        return EngineError("CONVERSION_FAILED", f"LibreOffice stopped while converting {name}")
    detail = hide_paths(str(answer.get("message") or "LibreOffice failed"))  # no work paths in messages
    return EngineError(code, f"converting {name}: {detail}")


def _job(
    request: EngineRequest, module: Module, writer: Writer, staged: Path, target: Path
) -> dict[str, Any]:
    reader = module.readers[request.input_format]
    job: dict[str, Any] = {
        "source": str(staged),
        "target": str(target),
        "format": request.output_format,
        "import_filter": reader.filter,
        "import_options": reader.options,
        "export_filter": writer.filter,
        "export_options": writer.options,
    }
    options = request.options
    if writer.pdf:
        data: dict[str, Any] = {}
        page_range = str_option(options, "page_range")
        if page_range:
            data["PageRange"] = page_range
        if bool_option(options, "pdf_a", False):
            data["SelectPdfVersion"] = 2
        quality = int_option(options, "quality", None, 1, 100)
        if quality is not None:
            data["Quality"] = quality
        job["filter_data"] = data
    elif writer.media_type:
        job["media_type"] = writer.media_type
        job["target"] = str(target.with_name(f"{target.stem}-%d{target.suffix}"))
        job["first"], job["last"] = _slide_range(str_option(options, "slide_range"))
        job["width"] = int_option(options, "width", None, 1, 20000)
        job["quality"] = int_option(options, "quality", None, 1, 100)
    if request.output_format in ("csv", "tsv"):
        job["sheet"] = int_option(options, "sheet", None, 1, 10000)
    return job


def _slide_range(spec: str | None) -> tuple[int | None, int | None]:
    """``"2"`` -> (2, 2); ``"2-4"`` -> (2, 4); ``"3-"`` -> (3, None); None -> all."""
    if spec is None:
        return None, None
    match = _RANGE.fullmatch(spec)
    first = int(match.group(1)) if match else 0
    if match is None or first < 1:
        raise EngineError("INVALID_OPTION", f"option 'slide_range' must be like '2' or '1-3', got {spec!r}")
    if not match.group(2):
        return first, first
    last = int(match.group(3)) if match.group(3) else None
    if last is not None and last < first:
        raise EngineError("INVALID_OPTION", f"option 'slide_range' ends before it starts: {spec!r}")
    return first, last
