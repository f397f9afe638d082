"""Reading the members of an archive (zip, 7z, tar, tar.gz, tar.bz2, tar.xz; with the zstandard and lz4
libraries tar.zst and tar.lz4, and the single compressed files zst and lz4, whose one member is the file
named without its extension) into a directory, safely.

An archive from a user is hostile until proven otherwise, so:
- a member's name is made relative and safe, part by part (``/etc/x`` -> ``etc/x``, ``../a`` -> ``a``;
  reserved characters replaced as ``safe_filename`` does), and two members that end up with the same
  name get ``-1``, ``-2`` suffixes like the archive operation's members;
- only regular files are taken: links, devices and FIFOs are skipped, so nothing points outside;
- at most ``MAX_MEMBERS`` files and ``MAX_TOTAL_BYTES`` bytes unpacked, counted while the bytes are
  written (not from the sizes the archive claims): a zip bomb fails INVALID_INPUT_FILE early.

Each file keeps its member's date, so the archive written next carries it (zstd and lz4 store none).
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from importlib.util import find_spec
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.failures import CANCELLED, INVALID_INPUT_FILE, library_errors
from mcv_pipelines.service.engines.files import safe_filename, split_extension

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = [
    "MAX_MEMBERS", "MAX_TOTAL_BYTES", "READABLE", "STREAMED", "MemberNames", "decompressed",
    "safe_member_name", "unpack",
]  # fmt: skip

MAX_MEMBERS = 10_000
MAX_TOTAL_BYTES = 2 * 1024**3
_STDLIB = ("zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz")
# format -> the library that decompresses it (imported only when a task reads one)
STREAMED = {"tar.zst": "zstandard", "zst": "zstandard", "tar.lz4": "lz4", "lz4": "lz4"}
READABLE = (*_STDLIB, *(fmt for fmt, library in STREAMED.items() if find_spec(library) is not None))
_CHUNK = 1 << 20


def safe_member_name(name: str) -> str | None:
    """A relative path made of safe parts, or None when nothing of the name is left.

    >>> safe_member_name("../../etc/passwd"), safe_member_name("/a/./b:c.txt"), safe_member_name("..")
    ('etc/passwd', 'a/b_c.txt', None)
    """
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    cleaned = [safe_filename(part, fallback="") for part in parts]
    kept = [part for part in cleaned if part]
    return "/".join(kept) or None


class _Budget:
    def __init__(self, request: EngineRequest, archive_name: str) -> None:
        self.request = request
        self.name = archive_name
        self.members = 0
        self.bytes = 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise EngineError(INVALID_INPUT_FILE, f"{self.name} holds more than {MAX_MEMBERS:,} files")

    def add(self, count: int) -> None:
        self.bytes += count
        if self.bytes > MAX_TOTAL_BYTES:
            raise EngineError(
                INVALID_INPUT_FILE, f"{self.name} unpacks to more than {MAX_TOTAL_BYTES // 1024**2:,} MB"
            )
        if self.request.cancelled.is_set():
            raise EngineError(CANCELLED, "the task was cancelled")


class MemberNames:
    """Names of one archive's members: a name taken already (case aside) gets ``-1``, ``-2``..."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def unique(self, name: str) -> str:
        stem, suffix = split_extension(name)
        candidate, n = name, 0
        while candidate.lower() in self.used:
            n += 1
            candidate = f"{stem}-{n}{suffix}"
        self.used.add(candidate.lower())
        return candidate


# a member's name in the archive, its bytes, and its date (seconds since 1970) when the archive has one
_Member = tuple[str, IO[bytes], float | None]


def _copy(stream: IO[bytes], target: Path, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        while chunk := stream.read(_CHUNK):
            budget.add(len(chunk))
            out.write(chunk)


def _zip_date(info: zipfile.ZipInfo) -> float | None:
    try:
        return datetime(*info.date_time).timestamp()  # local time, as zip stores it and zipfile reads it
    except ValueError:
        return None


def _zip_members(path: Path) -> Iterator[_Member]:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.is_dir() or (info.external_attr >> 28) == 0xA:  # a directory or a symlink
                continue
            with archive.open(info) as stream:
                yield info.filename, stream, _zip_date(info)


class _Checked(io.RawIOBase):
    """A decompressing stream whose library errors (a damaged frame) become INVALID_INPUT_FILE naming the
    file, wherever it is read: in a tar reader, or copied out as a single compressed file's one member."""

    def __init__(self, stream: IO[bytes], problem: str, errors: tuple[type[Exception], ...]) -> None:
        super().__init__()
        self._stream, self._problem, self._errors = stream, problem, errors

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        try:
            data = self._stream.read(len(view))
        except self._errors as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{self._problem}: {exc}") from exc
        view[: len(data)] = data
        return len(data)


@contextmanager
def decompressed(path: Path, fmt: str) -> Iterator[IO[bytes]]:
    """The bytes of the zstd or lz4 file ``path``, decompressed as they are read."""
    kind = "zstd" if fmt.endswith("zst") else "lz4"
    problem = f"{path.name} is not a whole {kind} file"
    with path.open("rb") as raw:
        if kind == "zstd":
            import zstandard

            with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as stream:
                yield io.BufferedReader(_Checked(stream, problem, (zstandard.ZstdError,)), _CHUNK)
        else:
            import lz4.frame

            with lz4.frame.open(raw, "rb") as stream:  # lz4 reports a damaged frame as RuntimeError
                yield io.BufferedReader(_Checked(stream, problem, (RuntimeError,)), _CHUNK)


def _tar_members(path: Path, fmt: str) -> Iterator[_Member]:
    if fmt in STREAMED:
        if not fmt.startswith("tar."):  # one compressed file: its member is named without the extension
            with decompressed(path, fmt) as stream:
                yield path.name[: -len(fmt) - 1] or "file", stream, None  # zstd and lz4 keep no date
            return
        with decompressed(path, fmt) as stream, tarfile.open(fileobj=stream, mode="r|") as archive:
            yield from _tar_files(archive)
        return
    with tarfile.open(path, "r:*") as archive:
        yield from _tar_files(archive)


def _tar_files(archive: tarfile.TarFile) -> Iterator[_Member]:
    for info in archive:
        stream = archive.extractfile(info) if info.isfile() else None
        if stream is not None:
            with stream:
                yield info.name, stream, float(info.mtime)


def _7z_members(path: Path, scratch: Path, budget: _Budget) -> Iterator[_Member]:
    import py7zr
    from py7zr.exceptions import ArchiveError

    try:
        files = _7z_extract(py7zr.SevenZipFile(path), scratch, budget)
    except ArchiveError as exc:
        problem = f"{budget.name} is not a 7z archive py7zr can read: {exc}"
        raise EngineError(INVALID_INPUT_FILE, problem) from exc
    root = scratch.resolve()
    for name in files:
        member = scratch / name
        if member.is_file() and not member.is_symlink() and member.resolve().is_relative_to(root):
            with member.open("rb") as stream:
                yield name, stream, member.stat().st_mtime  # py7zr sets the member's date


def _7z_extract(archive: Any, scratch: Path, budget: _Budget) -> list[str]:
    """Extract the regular files of a 7z archive (never its links) into ``scratch``; their names."""
    with archive:
        files = [entry for entry in archive.list() if not entry.is_directory and not entry.is_symlink]
        if len(files) > MAX_MEMBERS:
            raise EngineError(INVALID_INPUT_FILE, f"{budget.name} holds more than {MAX_MEMBERS:,} files")
        # py7zr decodes a solid block at once: refuse from the declared sizes before decoding, and
        # count again below while copying what it wrote
        if sum(entry.uncompressed for entry in files) > MAX_TOTAL_BYTES:
            raise EngineError(
                INVALID_INPUT_FILE, f"{budget.name} unpacks to more than {MAX_TOTAL_BYTES // 1024**2:,} MB"
            )
        names = [entry.filename for entry in files]
        archive.extract(path=scratch, targets=names)
    return names


def unpack(request: EngineRequest, path: Path, fmt: str, into: Path) -> list[tuple[Path, str]]:
    """Unpack the archive ``path`` (format ``fmt``) into ``into``: [(file, name in the archive)]."""
    budget = _Budget(request, path.name)
    names = MemberNames()
    unpacked: list[tuple[Path, str]] = []
    with (
        tempfile.TemporaryDirectory(dir=request.work_dir) as scratch,
        library_errors(f"read {path.name} as a {fmt} archive", INVALID_INPUT_FILE),
    ):
        if fmt == "zip":
            members = _zip_members(path)
        elif fmt == "7z":
            members = _7z_members(path, Path(scratch), budget)
        else:
            members = _tar_members(path, fmt)
        for raw_name, stream, mtime in members:
            name = safe_member_name(raw_name)
            if name is None:
                continue
            budget.member()
            name = names.unique(name)
            target = into / f"{len(unpacked):05d}"
            _copy(stream, target, budget)
            if mtime is not None and mtime > 0:  # the member's date, kept by the archive written next
                os.utime(target, (mtime, mtime))
            unpacked.append((target, name))
    return unpacked
