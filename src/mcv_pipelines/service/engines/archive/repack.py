"""convert of an archive into another archive format: members unpacked under guard (unpack.py) and
written again with their (safe) paths inside the archive kept."""

from __future__ import annotations

import tarfile
import zipfile
from importlib.util import find_spec
from pathlib import Path
from typing import BinaryIO, Literal

from mcv_pipelines.service.engines.archive.unpack import READABLE, STREAMED, unpack
from mcv_pipelines.service.engines.base import EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.files import OutputNames, split_extension
from mcv_pipelines.service.engines.naming import single_input
from mcv_pipelines.service.engines.options import str_option

__all__ = ["WRITABLE", "repack"]

_TAR_MODES: dict[str, Literal["w", "w:gz", "w:bz2", "w:xz"]] = {
    "tar": "w", "tar.gz": "w:gz", "tar.bz2": "w:bz2", "tar.xz": "w:xz",
}  # fmt: skip
# tar.zst and tar.lz4 through the libraries that read them (unpack.STREAMED), when installed
WRITABLE = (
    "zip",
    "7z",
    *_TAR_MODES,
    *(f for f in ("tar.zst", "tar.lz4") if find_spec(STREAMED[f]) is not None),
)


def _anonymous(info: tarfile.TarInfo) -> tarfile.TarInfo:
    # set in place (tarfile made this TarInfo for this one member): TarInfo.replace is Python
    # 3.11.4+, and Debian bookworm's own Python is 3.11.2
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o644
    return info


def _compressing(raw: BinaryIO, fmt: str) -> BinaryIO:
    if fmt == "tar.zst":
        import zstandard

        # level 10: a third smaller than zstd's default 3 on text, still ~40 MB/s; closefd off, ``raw``
        # is closed by its own with
        writer: BinaryIO = zstandard.ZstdCompressor(level=10).stream_writer(raw, closefd=False)
        return writer
    import lz4.frame

    lz4_writer: BinaryIO = lz4.frame.open(raw, "wb")
    return lz4_writer


def write_archive(fmt: str, out: Path, members: list[tuple[Path, str]]) -> None:
    """Write ``members`` (file, path inside the archive) as a ``fmt`` archive at ``out``."""
    if fmt == "zip":
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, strict_timestamps=False) as archive:
            for path, name in members:
                archive.write(path, name)
    elif fmt in _TAR_MODES:
        with tarfile.open(out, _TAR_MODES[fmt]) as tarred:
            for path, name in members:
                tarred.add(path, name, recursive=False, filter=_anonymous)
    elif fmt in ("tar.zst", "tar.lz4"):
        with (
            out.open("wb") as raw,
            _compressing(raw, fmt) as stream,
            tarfile.open(fileobj=stream, mode="w|") as tarred,
        ):
            for path, name in members:
                tarred.add(path, name, recursive=False, filter=_anonymous)
    elif fmt == "7z":
        import py7zr

        # preset 6 (xz's default) keeps py7zr near 100 MB per task, as the archive operation does
        with py7zr.SevenZipFile(out, "w", filters=[{"id": py7zr.FILTER_LZMA2, "preset": 6}]) as archive:
            for path, name in members:
                archive.write(path, name)
    else:
        raise ValueError(f"no writer of {fmt} archives")


def repack(request: EngineRequest) -> EngineResult:
    source, target = request.input_format, request.output_format
    if source not in READABLE or target not in WRITABLE or source == target:
        raise EngineError(UNSUPPORTED_CONVERSION, f"the archive engine does not convert {source} to {target}")
    path = single_input(request)
    request.work_dir.mkdir(parents=True, exist_ok=True)
    members_dir = request.work_dir / "members"
    members_dir.mkdir(exist_ok=True)
    with library_errors(f"read {path.name} as a {source} archive", "INVALID_INPUT_FILE"):
        members = unpack(request, path, source, members_dir)
    stem = split_extension(path.name)[0]
    out = OutputNames(request.output_dir, str_option(request.options, "filename", None), 1).next(stem, target)
    request.output_dir.mkdir(parents=True, exist_ok=True)
    with library_errors(f"write the {target} archive {out.name!r}"):
        write_archive(target, out, members)
    return EngineResult(files=[out])
