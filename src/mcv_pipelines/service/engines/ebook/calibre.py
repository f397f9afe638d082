"""convert with Calibre's ebook-convert.

Calibre runs headless (Qt's offscreen platform) with its configuration and temporary files in the
task's scratch space, never the service user's home. HTML is not taken as input: Calibre follows an
HTML file's local links and images into the book, so html -> epub is Pandoc's (sandboxed) job.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.seal import Limits

__all__ = ["CALIBRE_INPUTS", "CALIBRE_OUTPUTS", "CalibreEngine"]

# What bench/formats.py proves here. Comic archives (cbz: a zip of pictures, cb7: a 7z of them) and
# the zipped FictionBook (fbz) are read only, as Calibre does; azw and prc are MOBI files under the
# names Kindle and Mobipocket gave them. SNB is written, not read: Calibre 6 fails on the SNB it
# writes itself (bench/formats.py: snb -> epub, docx, pdf ... all failed). Not here: cbr (RAR;
# Calibre's own unrar is not built in Debian's package; pages/comics.py reads it), cbt (Calibre has
# no reader for it), chm (Calibre 6.13's reader fails on any CHM with a link: pages/chm.py unpacks it
# with chmlib and hands Calibre an HTMLZ).
CALIBRE_INPUTS = (
    "epub", "mobi", "azw3", "fb2", "lit", "lrf", "pdb", "rtf", "txt", "docx", "odt", "htmlz", "txtz",
    "pml", "pmlz", "rb", "tcr", "cbz", "cb7", "fbz", "azw", "prc",
)  # fmt: skip
CALIBRE_OUTPUTS = (
    "epub", "mobi", "azw3", "fb2", "lit", "lrf", "pdb", "rtf", "txt", "docx", "pdf", "htmlz", "txtz",
    "pmlz", "rb", "snb", "tcr",
)  # fmt: skip
# A comic is pictures: as plain text it is an empty file (txtz keeps the pictures beside it).
_COMICS = frozenset({"cbz", "cb7"})


class CalibreEngine(ProgramEngine):
    name = "calibre"
    programs = ("ebook-convert",)
    version_pattern = r"calibre (\d[\w.]*)"
    version_timeout = 60  # calibre's Python start-up is slow on a cold disk
    # Its PDF writer is Qt WebEngine (Chromium), which reserves far more address space than it uses
    # and dies under the seal's 4 GiB limit; the other limits stay.
    limits = Limits(memory=None)

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", s, t, self.name, options=(FILENAME,), engine_versions=versions)
            for s in CALIBRE_INPUTS
            for t in CALIBRE_OUTPUTS
            if s != t and not (s in _COMICS and t == "txt")
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source_format, target_format = request.input_format, request.output_format
        if (
            request.operation != "convert"
            or source_format not in CALIBRE_INPUTS
            or target_format not in CALIBRE_OUTPUTS
            or (source_format in _COMICS and target_format == "txt")
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"calibre does not convert {source_format} to {target_format}"
            )
        source = single_input(request)
        scratch = request.work_dir / "calibre"
        (scratch / "config").mkdir(parents=True, exist_ok=True)
        (scratch / "tmp").mkdir(exist_ok=True)
        # ebook-convert picks its reader and writer by the files' extensions
        copy = scratch / f"input.{source_format}"
        shutil.copyfile(source, copy)
        written = scratch / f"output.{target_format}"
        env = dict(  # on top of PATH and the locale (environment.py)
            HOME=str(scratch),
            CALIBRE_CONFIG_DIRECTORY=str(scratch / "config"),
            CALIBRE_TEMP_DIR=str(scratch / "tmp"),
            CALIBRE_CACHE_DIRECTORY=str(scratch / "cache"),
            QT_QPA_PLATFORM="offscreen",
            # Chromium's own sandbox cannot start as root or in most containers
            QTWEBENGINE_CHROMIUM_FLAGS="--no-sandbox --disable-gpu",
        )
        run_checked(
            [self.program, copy.name, written.name],
            what=f"converting {source.name} to {target_format} with calibre",
            cwd=scratch,
            env=env,
            timeout=request.timeout,
            cancelled=request.cancelled,
            limits=self.limits,
        )
        if not written.is_file():
            raise EngineError(CONVERSION_FAILED, f"calibre wrote no {target_format} for {source.name}")
        target = output_path(request, target_format)
        shutil.move(written, target)
        return EngineResult(files=[target])
