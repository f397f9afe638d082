"""Office documents to PDF with LibreOffice headless.

LibreOffice keeps state in a user profile and two processes must not share one, so the engine keeps a
small pool of isolated profiles (``-env:UserInstallation``), one per concurrent conversion, each
behind a lock: conversions on one profile run one at a time. A profile whose conversion was killed
(timeout, cancel) is thrown away and made afresh next time.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import bool_option, str_option
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.program_engine import ProgramEngine

__all__ = ["FORMAT_FAMILIES", "LibreOfficeEngine"]

# Input format -> (LibreOffice module library, PDF export filter).
_WRITER = ("libswlo.so", "writer_pdf_Export")
_CALC = ("libsclo.so", "calc_pdf_Export")
_IMPRESS = ("libsdlo.so", "impress_pdf_Export")
FORMAT_FAMILIES: dict[str, tuple[str, str]] = {
    "docx": _WRITER, "doc": _WRITER, "odt": _WRITER, "rtf": _WRITER, "txt": _WRITER,
    "xlsx": _CALC, "xls": _CALC, "ods": _CALC, "csv": _CALC,
    "pptx": _IMPRESS, "ppt": _IMPRESS, "odp": _IMPRESS,
}  # fmt: skip
_CSV_FILTER = "CSV:44,34,76,1"  # comma, double quote, UTF-8, from line 1
_LOAD_ERROR = "source file could not be loaded"
_OPTIONS = (
    OptionSpec("page_range", "string", None, None, "Pages to export, such as '1-3'"),
    OptionSpec("pdf_a", "boolean", False, None, "Write PDF/A-2b"),
)


class _Profile:
    def __init__(self, number: int) -> None:
        self.number = number
        self.root: Path | None = None
        self.lock = threading.Lock()

    @property
    def path(self) -> Path:
        if self.root is None:  # made on first use, so an idle engine leaves nothing behind
            self.root = Path(tempfile.mkdtemp(prefix=f"mcv-libreoffice-{self.number}-"))
            weakref.finalize(self, shutil.rmtree, self.root, True)
        return self.root / "profile"

    @property
    def url(self) -> str:
        return self.path.as_uri()


class LibreOfficeEngine(ProgramEngine):
    name = "libreoffice"
    programs = ("soffice", "libreoffice")
    version_args = ("--headless", "--version")
    version_pattern = r"LibreOffice (\d[\w.]*)"
    version_timeout = 60  # the first start of a profile is slow

    def __init__(self, workers: int = 2) -> None:
        super().__init__()
        self._profiles = [_Profile(n) for n in range(1, max(1, workers) + 1)]

    @functools.cached_property
    def _formats(self) -> list[str]:
        assert self.program is not None
        program_dir = Path(self.program).resolve().parent
        return [fmt for fmt, (library, _) in FORMAT_FAMILIES.items() if (program_dir / library).exists()]

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [ConversionType("convert", fmt, "pdf", self.name, options=_OPTIONS, engine_versions=versions)
                for fmt in self._formats]  # fmt: skip

    def _acquire(self, request: EngineRequest) -> _Profile:
        while True:
            for profile in self._profiles:
                if profile.lock.acquire(blocking=False):
                    return profile
            if request.cancelled.wait(0.1):
                raise EngineError("CANCELLED", "the conversion was cancelled while waiting for LibreOffice")

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "convert" or request.output_format != "pdf" or self.program is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"libreoffice does not run {request.operation} here")
        family = FORMAT_FAMILIES.get(request.input_format)
        if family is None or request.input_format not in self._formats:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"libreoffice here cannot read {request.input_format}"
            )
        source = single_input(request)
        staging = request.work_dir / "libreoffice"
        in_dir, out_dir = staging / "in", staging / "out"
        in_dir.mkdir(parents=True, exist_ok=True)
        out_dir.mkdir(exist_ok=True)
        # LibreOffice picks the import filter partly by extension: give it the declared one.
        staged = in_dir / f"{source.stem or 'document'}.{request.input_format}"
        shutil.copyfile(source, staged)
        argv = [
            self.program,
            "--headless",
            "--invisible",
            "--norestore",
            "--nologo",
            "--nodefault",
            "--nolockcheck",
            "--convert-to",
            _export_filter(request, family[1]),
            "--outdir",
            str(out_dir),
        ]
        if request.input_format == "csv":
            argv.append(f"--infilter={_CSV_FILTER}")
        # LibreOffice says nothing while it converts: its stages are the progress (a profile free,
        # the document converted, the PDF in place).
        profile = self._acquire(request)
        request.progress(10)
        try:
            outcome = run_program(
                [*argv[:1], f"-env:UserInstallation={profile.url}", *argv[1:], str(staged)],
                cwd=staging,
                timeout=request.timeout,
                cancelled=request.cancelled,
                env=_environment(profile.path),
                writable=(profile.path.parent,),  # the profile outlives the task
            )
            if outcome.timed_out or outcome.cancelled:
                shutil.rmtree(profile.path, ignore_errors=True)
        finally:
            profile.lock.release()
        if outcome.timed_out:
            raise EngineError(
                "TIMEOUT", f"LibreOffice did not convert {source.name} within {request.timeout:g} s"
            )
        if outcome.cancelled:
            raise EngineError("CANCELLED", f"converting {source.name} was cancelled")
        produced = out_dir / f"{staged.stem}.pdf"
        if not produced.is_file() or produced.stat().st_size == 0:
            if _LOAD_ERROR in outcome.output:
                raise EngineError(
                    "INVALID_INPUT",
                    f"LibreOffice could not open {source.name} as a {request.input_format} document",
                )
            tail = outcome.output.strip().splitlines()[-1:] or [f"exit code {outcome.returncode}"]
            raise EngineError("CONVERSION_FAILED", f"LibreOffice wrote no PDF for {source.name}: {tail[0]}")
        request.progress(90)
        target = output_path(request, "pdf")
        shutil.move(produced, target)
        return EngineResult(files=[target])


def _export_filter(request: EngineRequest, filter_name: str) -> str:
    """``pdf:<filter>:<JSON options>`` (LibreOffice 7.4+) when options are set, else plain ``pdf``."""
    settings: dict[str, dict[str, str]] = {}
    page_range = str_option(request.options, "page_range")
    if page_range:
        settings["PageRange"] = {"type": "string", "value": page_range}
    if bool_option(request.options, "pdf_a", False):
        settings["SelectPdfVersion"] = {"type": "long", "value": "2"}
    return f"pdf:{filter_name}:{json.dumps(settings)}" if settings else "pdf"


def _environment(profile: Path) -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(profile.parent), "LANG": "C.UTF-8",
            "SAL_USE_VCLPLUGIN": "svp"}  # fmt: skip
