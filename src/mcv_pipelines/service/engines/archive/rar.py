"""The ``unar`` engine: ``convert`` of the archives only The Unarchiver reads here (RAR, Microsoft
Cabinet, ISO 9660 images, cpio, ar and Debian packages, ARJ, Unix compress ``.Z`` and ``.lzma``, and
``tar.Z``/``tar.lzma``, whose tar it opens too) into the archive formats this service writes.

These are read only: no maintained free program writes RAR, and the others are read to be repacked.
A single compressed file (``.Z``, ``.lzma``) is an archive of one member, named as lsar names it.
``lsar -j`` lists the members; each regular
file is then extracted on its own (``unar -i N`` into an empty directory of its own, so whatever name
unar gives it on disk, we know which member it is) and written again under the same guards as the
archive operation's convert (unpack.py): names made relative and safe, duplicates suffixed, links,
directories, devices and encrypted members never followed, setuid and other mode bits dropped, at most
``MAX_MEMBERS`` files and ``MAX_TOTAL_BYTES`` bytes, refused from the declared sizes before anything
is unpacked and counted again from what unar wrote. Both programs run sealed like every other
(process.py), each file they write capped at what is left of ``MAX_TOTAL_BYTES`` (a member of unknown
size, as a ``.Z`` file's is, meets that cap: a bomb fails INVALID_INPUT_FILE, not a full disk).
"""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.archive.repack import WRITABLE, write_archive
from mcv_pipelines.service.engines.archive.unpack import (
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    MemberNames,
    safe_member_name,
)
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import (
    CANCELLED,
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
    library_errors,
)
from mcv_pipelines.service.engines.files import OutputNames, split_extension
from mcv_pipelines.service.engines.naming import single_input
from mcv_pipelines.service.engines.options import FILENAME, str_option
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked
from mcv_pipelines.service.engines.seal import Limits
from mcv_pipelines.service.engines.user_entry import user_entry_environment

__all__ = ["UNAR_READABLE", "RarMember", "UnarEngine", "rar_members"]

_LIMITS = Limits(file_size=MAX_TOTAL_BYTES)
# format -> the lsarFormatName it must have (its start): what unar reads here, each proven with a sample
# made by another program (bench/formats_support/samples_archive.py)
UNAR_READABLE: dict[str, str] = {
    "rar": "RAR", "cab": "CAB", "iso": "ISO 9660", "cpio": "Cpio", "ar": "Ar", "deb": "Ar", "arj": "ARJ",
    "z": "Compress", "tar.z": "Compress", "lzma": "LZMA_Alone", "tar.lzma": "LZMA_Alone",
}  # fmt: skip
_KINDS = {"rar": "a RAR archive", "cab": "a cabinet", "iso": "an ISO 9660 image", "deb": "a Debian package"}


@dataclass(frozen=True, slots=True)
class RarMember:
    """One regular file of an archive, as lsar lists it (size None: unknown, as in a ``.Z`` file)."""

    index: int
    name: str
    size: int | None


def _kind(fmt: str) -> str:
    return _KINDS.get(fmt, f"a {fmt} archive")


def rar_members(listing: dict[str, Any], archive_name: str, fmt: str = "rar") -> list[RarMember]:
    """The regular files of ``lsar -j`` output; refuses encrypted members and too many or too big."""
    entries = listing.get("lsarContents")
    if not isinstance(entries, list):
        raise EngineError(INVALID_INPUT_FILE, f"{archive_name} is not {_kind(fmt)} unar can read")
    members: list[RarMember] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("XADIsEncrypted"):
            raise EngineError(INVALID_INPUT_FILE, f"{archive_name} is encrypted; no password is taken")
        kinds = ("XADIsDirectory", "XADIsLink", "XADIsHardLink", "XADIsResourceFork", "XADIsCharacterDevice",
                 "XADIsBlockDevice", "XADIsFIFO")  # fmt: skip
        if any(entry.get(kind) for kind in kinds):
            continue
        if (entry.get("XADPosixPermissions") or 0) & 0o170000 not in (0, 0o100000):
            continue  # a device, FIFO, socket or link by its mode (cpio, iso's Rock Ridge, ar)
        index, name, size = entry.get("XADIndex"), entry.get("XADFileName"), entry.get("XADFileSize")
        if isinstance(index, int) and isinstance(name, str) and (size is None or isinstance(size, int)):
            members.append(RarMember(index, name, size))
    if len(members) > MAX_MEMBERS:
        raise EngineError(INVALID_INPUT_FILE, f"{archive_name} holds more than {MAX_MEMBERS:,} files")
    if sum(m.size or 0 for m in members) > MAX_TOTAL_BYTES:
        raise EngineError(
            INVALID_INPUT_FILE, f"{archive_name} unpacks to more than {MAX_TOTAL_BYTES // 1024**2:,} MB"
        )
    return members


class UnarEngine:
    """RAR, cab, iso, cpio, ar/deb, arj, Z and lzma (read) to the archive formats this service writes,
    with ``lsar`` and ``unar``."""

    name = "unar"

    def __init__(self) -> None:
        self.unar = find_program("unar")
        self.lsar = find_program("lsar")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.unar is None or self.lsar is None:
            return None
        return program_version([self.lsar, "--version"], r"v?(\d+\.\d+(?:\.\d+)?)", limits=_LIMITS)

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", source, target, self.name, 1, (FILENAME,), versions)
            for source in UNAR_READABLE
            for target in WRITABLE
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        target, source = request.output_format, request.input_format
        if request.operation != "convert" or source not in UNAR_READABLE or target not in WRITABLE:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"unar does not {request.operation} {request.input_format} to {target}",
            )
        if self.unar is None or self.lsar is None:
            raise EngineError("ENGINE_UNAVAILABLE", "unar and lsar are not installed on this machine")
        path = single_input(request)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=request.work_dir) as scratch:
            written = self.unpack(request, path, Path(scratch), source)
            stem = split_extension(path.name)[0]
            names = OutputNames(request.output_dir, str_option(request.options, "filename", None), 1)
            out = names.next(stem, target)
            request.output_dir.mkdir(parents=True, exist_ok=True)
            with library_errors(f"write the {target} archive {out.name!r}"):
                write_archive(target, out, written)
        return EngineResult(files=[out])

    def unpack(
        self, request: EngineRequest, path: Path, scratch: Path, fmt: str = "rar"
    ) -> list[tuple[Path, str]]:
        """The regular files of the ``fmt`` archive ``path`` unpacked under ``scratch`` (an empty
        directory in the task's work space): [(file, safe unique name)], in the archive's order. Comic
        archives (pages/comics.py) unpack their cbr through here too."""
        if self.unar is None or self.lsar is None:
            raise EngineError("ENGINE_UNAVAILABLE", "unar and lsar are not installed on this machine")
        unreadable = EngineError(INVALID_INPUT_FILE, f"{path.name} is not {_kind(fmt)} unar can read")
        env = user_entry_environment(scratch)
        try:
            listing = run_checked(
                [self.lsar, "-j", str(path)],
                what=f"listing {path.name}",
                env=env,
                timeout=request.timeout,
                cancelled=request.cancelled,
                limits=_LIMITS,
                answer_only=True,  # the JSON alone: a warning on stderr is no part of it
            )
            parsed = json.loads(listing.output)
        except json.JSONDecodeError:
            raise unreadable from None
        except EngineError as exc:
            if exc.code != "CONVERSION_FAILED":
                raise
            raise unreadable from None  # lsar exits 1 on what it cannot open
        wanted = UNAR_READABLE.get(fmt, "RAR")
        if not isinstance(parsed, dict) or not str(parsed.get("lsarFormatName", "")).startswith(wanted):
            found = parsed.get("lsarFormatName") if isinstance(parsed, dict) else None
            raise EngineError(
                INVALID_INPUT_FILE, f"{path.name} was declared {fmt} but is {found or 'not an archive'}"
            )
        return self._extract(request, path, rar_members(parsed, path.name, fmt), scratch, env)

    def _extract(
        self, request: EngineRequest, path: Path, members: list[RarMember], scratch: Path, env: dict[str, str]
    ) -> list[tuple[Path, str]]:
        assert self.unar is not None
        names = MemberNames()
        written: list[tuple[Path, str]] = []
        total = 0
        for number, member in enumerate(members):
            if request.cancelled.is_set():
                raise EngineError(CANCELLED, "the task was cancelled")
            name = safe_member_name(member.name)
            if name is None:
                continue
            into = scratch / f"{number:05d}"
            into.mkdir()
            left = MAX_TOTAL_BYTES - total
            too_big = EngineError(
                INVALID_INPUT_FILE, f"{path.name} unpacks to more than {MAX_TOTAL_BYTES // 1024**2:,} MB"
            )
            try:
                run_checked(
                    [self.unar, "-q", "-D", "-f", "-o", str(into), str(path), "-i", str(member.index)],
                    what=f"unpacking {path.name}",
                    env=env,
                    timeout=request.timeout,
                    cancelled=request.cancelled,
                    writable=(into,),
                    limits=Limits(file_size=left + 1),  # one byte past what is left: reaching it is a bomb
                )
            except EngineError:
                if any(p.is_file() and p.stat().st_size > left for p in into.rglob("*")):
                    raise too_big from None
                raise
            found = [p for p in into.rglob("*") if p.is_file() and not p.is_symlink()]
            if len(found) != 1:
                continue  # unar skipped it (a name it would not write): left out like a link
            total += found[0].stat().st_size
            if total > MAX_TOTAL_BYTES:
                raise too_big
            found[0].chmod(0o644)  # no setuid, setgid, sticky or execute bits carried into the new archive
            written.append((found[0], names.unique(name)))
        return written
