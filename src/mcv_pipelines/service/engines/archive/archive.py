"""The ``archive`` engine: every input file of every input task into one zip, tar, tar.gz, tar.bz2 or 7z;
and ``convert`` of one archive into another format (repack.py, under unpack.py's guards).

Members sit at the archive's top level under their own (sanitised) names; two files with the same
name become ``name.ext`` and ``name-1.ext``. Tar members carry no owner or group of this machine.
Credits: 1 for every conversion type. RAR is absent: no maintained library writes it.
"""

from __future__ import annotations

import platform
import tarfile
import zipfile
from collections.abc import Iterable
from importlib.util import find_spec
from pathlib import Path
from typing import Literal

from mcv_pipelines.service.engines.archive.repack import WRITABLE, repack
from mcv_pipelines.service.engines.archive.unpack import READABLE, MemberNames
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
)
from mcv_pipelines.service.engines.failures import (
    CANCELLED,
    MISSING_INPUT,
    UNSUPPORTED_CONVERSION,
    library_errors,
)
from mcv_pipelines.service.engines.files import OutputNames, safe_filename, split_extension
from mcv_pipelines.service.engines.options import FILENAME, str_option

__all__ = ["ArchiveEngine", "member_names"]

_TAR_MODES: dict[str, Literal["w", "w:gz", "w:bz2"]] = {"tar": "w", "tar.gz": "w:gz", "tar.bz2": "w:bz2"}
_ALIASES = {"tgz": "tar.gz", "tbz": "tar.bz2", "tbz2": "tar.bz2"}


def _formats() -> tuple[str, ...]:
    stdlib = ("zip", *_TAR_MODES)
    return (*stdlib, "7z") if find_spec("py7zr") is not None else stdlib


def member_names(inputs: Iterable[InputFile]) -> list[tuple[Path, str]]:
    """Each input path with a unique, safe name inside the archive, in input order."""
    names = MemberNames()
    return [(item.path, names.unique(safe_filename(item.path.name))) for item in inputs]


def _anonymous(info: tarfile.TarInfo) -> tarfile.TarInfo:
    # set in place (tarfile made this TarInfo for this one member): TarInfo.replace is Python
    # 3.11.4+, and Debian bookworm's own Python is 3.11.2
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


class ArchiveEngine:
    """Archives with the standard library and py7zr; needs no external program."""

    name = "archive"

    def version(self) -> str | None:
        return platform.python_version()

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(platform.python_version()),)
        packs = [
            ConversionType("archive", "any", fmt, self.name, 1, (FILENAME,), versions) for fmt in _formats()
        ]
        sevenzip = find_spec("py7zr") is not None
        converts = [
            ConversionType("convert", source, target, self.name, 1, (FILENAME,), versions)
            for source in READABLE
            for target in WRITABLE
            if source != target and (sevenzip or "7z" not in (source, target))
        ]
        return [*packs, *converts]

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation == "convert":
            return repack(request)
        target = request.output_format.lower().lstrip(".")
        target = _ALIASES.get(target, target)
        if request.operation != "archive" or target not in _formats():
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"the archive engine cannot run {request.operation} to {request.output_format}; "
                f"it writes {', '.join(_formats())}",
            )
        if not request.inputs:
            raise EngineError(MISSING_INPUT, "archive needs at least one input file, and the task has none")
        filename = str_option(request.options, "filename", None)
        if filename and not split_extension(safe_filename(filename))[1]:
            filename = f"{filename}.{target}"
        out = OutputNames(request.output_dir, filename, 1).next("archive", target)
        members = member_names(request.inputs)
        with library_errors(f"write the {target} archive {out.name!r}"):
            self._write(target, out, members, request)
        return EngineResult(files=[out])

    @staticmethod
    def _write(target: str, out: Path, members: list[tuple[Path, str]], request: EngineRequest) -> None:
        def check() -> None:
            if request.cancelled.is_set():
                raise EngineError(CANCELLED, "the task was cancelled")

        if target == "zip":
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, strict_timestamps=False) as archive:
                for path, name in members:
                    check()
                    archive.write(path, name)
        elif target in _TAR_MODES:
            with tarfile.open(out, _TAR_MODES[target]) as tarred:
                for path, name in members:
                    check()
                    tarred.add(path, name, recursive=False, filter=_anonymous)
        else:
            import py7zr

            # py7zr's default (LZMA2 preset 7) takes ~370 MB per task; preset 6, xz's default, ~100 MB
            filters = [{"id": py7zr.FILTER_LZMA2, "preset": 6}]
            with py7zr.SevenZipFile(out, "w", filters=filters) as sevenzip:
                for path, name in members:
                    check()
                    sevenzip.write(path, name)
