"""The ``xorriso`` engine: ``convert`` of any archive this service reads into an ISO 9660 image.

The archive is unpacked under the same guards as every other convert (unpack.py for what Python
reads, the unar engine for the rest), its files laid out with their safe paths in a folder of the task,
and xorriso (``-as mkisofs``) writes them with Rock Ridge (full names, dates) and Joliet (Windows)
names: what a user burns, mounts or attaches to a virtual machine. xorriso runs sealed like every
program (process.py), reading only the task and writing only its output folder, its file capped at
the unpacking budget plus room for the image's own tables.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.archive.rar import UNAR_READABLE, UnarEngine
from mcv_pipelines.service.engines.archive.unpack import MAX_TOTAL_BYTES, READABLE, unpack
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.files import OutputNames, split_extension
from mcv_pipelines.service.engines.naming import single_input
from mcv_pipelines.service.engines.options import FILENAME, str_option
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked
from mcv_pipelines.service.engines.seal import Limits

__all__ = ["XorrisoEngine", "volume_id"]

_TABLES = 64 * 1024**2  # the image's directories, path tables and padding, beyond its files


def volume_id(stem: str) -> str:
    """An ISO 9660 volume label of ``stem``: d-characters only (A-Z, 0-9, _), at most 32.

    >>> volume_id("Holiday photos 2024.tar"), volume_id("???")
    ('HOLIDAY_PHOTOS_2024_TAR', 'ARCHIVE')
    """
    label = re.sub(r"[^A-Z0-9]+", "_", stem.upper()).strip("_")[:32]
    return label or "ARCHIVE"


class XorrisoEngine:
    """Archives (every format the archive and unar engines read) to ISO 9660 images with ``xorriso``."""

    name = "xorriso"

    def __init__(self) -> None:
        self.xorriso = find_program("xorriso")
        self.unar = UnarEngine()

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.xorriso is None:
            return None
        return program_version([self.xorriso, "-version"], r"xorriso (\d+\.\d+(?:\.\d+)?)")

    def _sources(self) -> tuple[str, ...]:
        unar = tuple(UNAR_READABLE) if self.unar.version() is not None else ()
        return (*READABLE, *unar)

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", source, "iso", self.name, 1, (FILENAME,), versions)
            for source in self._sources()
            if source != "iso"
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source = request.input_format
        if request.operation != "convert" or source not in self._sources() or request.output_format != "iso":
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"xorriso does not {request.operation} {source} to {request.output_format}",
            )
        if self.xorriso is None:
            raise EngineError("ENGINE_UNAVAILABLE", "xorriso is not installed on this machine")
        path = single_input(request)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=request.work_dir) as scratch:
            unpacked, tree = Path(scratch) / "members", Path(scratch) / "tree"
            unpacked.mkdir()
            tree.mkdir()
            if source in READABLE:
                with library_errors(f"read {path.name} as a {source} archive", "INVALID_INPUT_FILE"):
                    members = unpack(request, path, source, unpacked)
            else:
                members = self.unar.unpack(request, path, unpacked, source)
            with library_errors(f"lay out the files of {path.name}"):
                _lay_out(members, tree)
            stem = split_extension(path.name)[0]
            out = OutputNames(request.output_dir, str_option(request.options, "filename", None), 1).next(
                stem, "iso"
            )
            request.output_dir.mkdir(parents=True, exist_ok=True)
            run_checked(
                [self.xorriso, "-as", "mkisofs", "-quiet", "-R", "-J", "-joliet-long", "-V", volume_id(stem),
                 "-o", str(out), str(tree)],
                what=f"writing {out.name}",
                timeout=request.timeout,
                cancelled=request.cancelled,
                writable=(request.output_dir,),
                limits=Limits(file_size=MAX_TOTAL_BYTES + _TABLES),
            )  # fmt: skip
        return EngineResult(files=[out])


def _lay_out(members: list[tuple[Path, str]], tree: Path) -> None:
    """Each unpacked file at its safe path under ``tree`` (a hard link where it can, else a copy). A
    name a folder holds already (``a`` after ``a/b``) gets ``-1``; one under a file (``a/b`` after
    ``a``) goes to the top, its slashes made ``_``."""
    for path, name in members:
        if any((tree / parent).is_file() for parent in Path(name).parents if parent.parts):
            name = name.replace("/", "_")
        target = base = tree / name
        stem, suffix = split_extension(base.name)
        number = 0
        while target.exists():
            number += 1
            target = base.with_name(f"{stem}-{number}{suffix}")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)
