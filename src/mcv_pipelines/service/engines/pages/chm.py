"""CHM (Microsoft Compiled HTML Help) to htmlz, and through Calibre to epub, pdf, txt, docx, mobi ...

chmlib's ``enum_chmLib`` lists the file's members and ``extract_chmLib`` unpacks them (both sealed);
chm_book.py makes the pages one HTMLZ book in the order of the table of contents, which Calibre then
converts. Not Calibre's own CHM reader: Calibre 6.13 (Debian bookworm) fails on every CHM whose
contents or pages hold a link (``'HTMLInput' object has no attribute 'root_dir_of_input'``), that
is on nearly every real one. Before anything is unpacked the listing is checked: a member whose name
climbs out (``..``), more than MAX_MEMBERS members or MAX_TOTAL_BYTES bytes are refused; the unpacked
files are taken only from the directory they were unpacked into, never through a link.
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.archive.unpack import MAX_MEMBERS, MAX_TOTAL_BYTES
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
)
from mcv_pipelines.service.engines.ebook.calibre import CALIBRE_OUTPUTS, CalibreEngine
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.files import split_extension
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME
from mcv_pipelines.service.engines.pages.chm_book import write_htmlz
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.seal import Limits
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["ChmEngine", "chm_listing"]

_LIMITS = Limits(file_size=MAX_TOTAL_BYTES)
# enum_chmLib: " spc  start  length  type<tabs>name", sizes in decimal
_ENTRY = re.compile(r"^\s*\d+\s+\d+\s+(\d+)\s+[a-z ]+?\t+(/.*?)\s*$")
# what Calibre makes of the HTMLZ (htmlz itself is this engine's own)
_THROUGH_CALIBRE = tuple(fmt for fmt in CALIBRE_OUTPUTS if fmt != "htmlz")


def chm_listing(output: str, name: str) -> list[tuple[str, int]]:
    """(member, length) from ``enum_chmLib``'s output; EngineError for a name that climbs out or an
    archive too large."""
    entries = [(m.group(2), int(m.group(1))) for line in output.splitlines() if (m := _ENTRY.match(line))]
    for member, _ in entries:
        if ".." in member.replace("\\", "/").split("/"):
            raise EngineError(
                INVALID_INPUT_FILE, f"{name} holds a member that climbs out of it ({member[:80]})"
            )
    if len(entries) > MAX_MEMBERS:
        raise EngineError(INVALID_INPUT_FILE, f"{name} holds more than {MAX_MEMBERS:,} files")
    if sum(length for _, length in entries) > MAX_TOTAL_BYTES:
        raise EngineError(
            INVALID_INPUT_FILE, f"{name} unpacks to more than {MAX_TOTAL_BYTES // 1024**2:,} MB"
        )
    return entries


class ChmEngine:
    """CHM with chmlib's tools; the outputs other than htmlz only where Calibre runs too."""

    name = "chmlib"

    def __init__(self) -> None:
        self.extract = find_program("extract_chmLib")
        self.enum = find_program("enum_chmLib")
        self.calibre: CalibreEngine | None = None

    def convert_with(self, calibre: CalibreEngine) -> None:
        """Hand the registry's Calibre (engines/__init__.py), so that the process asks its version once."""
        self.calibre = calibre

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        # chmlib's tools print no version: the library's, from its package name on this system
        if self.extract is None or self.enum is None:
            return None
        found = sorted(Path("/usr/lib").glob("*/libchm.so.*")) + sorted(Path("/usr/lib").glob("libchm.so.*"))
        return found[-1].name.removeprefix("libchm.so.") if found else "0"

    def _outputs(self) -> tuple[str, ...]:
        calibre = self.calibre is not None and self.calibre.version() is not None
        return ("htmlz", *_THROUGH_CALIBRE) if calibre else ("htmlz",)

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", "chm", target, self.name, options=(FILENAME,), engine_versions=versions)
            for target in self._outputs()
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        target = request.output_format
        if request.operation != "convert" or request.input_format != "chm" or target not in self._outputs():
            raise EngineError(UNSUPPORTED_CONVERSION, f"chmlib does not {request.operation} chm to {target}")
        assert self.extract is not None
        assert self.enum is not None
        source = isolated_input(request, "chm")
        shown = request.inputs[0].path.name
        listing = run_checked(
            [self.enum, source.name],
            what=f"listing {shown}",
            cwd=source.parent,
            timeout=request.timeout,
            cancelled=request.cancelled,
            limits=_LIMITS,
            answer_only=True,
        )
        if not chm_listing(listing.output, shown):
            raise EngineError(INVALID_INPUT_FILE, f"{shown} is not a CHM file chmlib can read")
        unpacked = source.parent / "files"
        unpacked.mkdir()
        run_checked(
            [self.extract, source.name, unpacked.name],
            what=f"unpacking {shown}",
            cwd=source.parent,
            timeout=request.timeout,
            cancelled=request.cancelled,
            writable=(unpacked,),
            limits=_LIMITS,
        )
        stem = split_extension(shown)[0] or "help"
        book = request.work_dir / "book" / f"{stem}.htmlz"
        book.parent.mkdir()
        if write_htmlz(unpacked, book, stem) == 0:
            raise EngineError(INVALID_INPUT_FILE, f"{shown} holds no HTML pages")
        if target == "htmlz":
            out = output_path(request, "htmlz")
            shutil.move(book, out)
            return EngineResult(files=[out])
        assert self.calibre is not None
        return self.calibre.run(self._through(request, book))

    @staticmethod
    def _through(request: EngineRequest, book: Path) -> EngineRequest:
        return EngineRequest(
            operation="convert",
            input_format="htmlz",
            output_format=request.output_format,
            options=request.options,
            inputs=[InputFile(request.inputs[0].task_name, book)],
            output_dir=request.output_dir,
            work_dir=request.work_dir / "calibre-run",
            timeout=request.timeout,
            cancelled=request.cancelled,
            progress=request.progress,
        )
