"""Archives of issue 47's wider formats, each made by its own program (never by unar, zstandard or lz4,
which read them in the service): gcab, genisoimage, cpio, ar, dpkg-deb, arj, compress (ncompress),
xz --format=lzma, zstd, lz4 and tar. The bench (bench/formats_support/samples_archive.py) and the
tests share them, and the checkers compare what comes out with ``TREE`` and ``SINGLE``.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAKERS", "PROGRAMS", "SINGLE", "TREE", "CpioEntry", "cpio_newc", "make_archive", "tree_in"]

WORD = "Quokka"
# the members of every multi-file sample: a text with the bench's word, and bytes of every value
TREE = {
    "notes/quokka.txt": f"About the {WORD}.\n".encode(),
    "data/bytes.bin": bytes(range(256)) * 8,
}
# the content of a single compressed file (Z, lzma, zst, lz4): its one member
SINGLE = f"A single compressed file about the {WORD}.\n".encode() * 20


def tree_in(directory: Path) -> Path:
    """``TREE`` written under ``directory``/tree; that folder."""
    root = directory / "tree"
    for name, data in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _run(argv: list[str], cwd: Path, stdin: bytes | None = None) -> bytes:
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, check=True, timeout=60).stdout


def _cab(out: Path, root: Path) -> None:
    _run(["gcab", "-c", str(out), *TREE], root)


def _iso(out: Path, root: Path) -> None:
    _run(["genisoimage", "-quiet", "-J", "-R", "-o", str(out), "."], root)


def _cpio(out: Path, root: Path) -> None:
    listing = "\n".join(["notes", "data", *TREE]).encode() + b"\n"
    out.write_bytes(_run(["cpio", "-o", "-H", "newc", "--quiet"], root, listing))


def _ar(out: Path, root: Path) -> None:
    # ar keeps no folders: the members are the files' own names
    flat = root.parent / "flat"
    flat.mkdir(exist_ok=True)
    for name in TREE:
        shutil.copyfile(root / name, flat / Path(name).name)
    _run(["ar", "rcD", str(out), *(Path(name).name for name in TREE)], flat)


def _deb(out: Path, root: Path) -> None:
    package = root.parent / "package"
    shutil.copytree(root, package / "usr/share/doc/quokka", dirs_exist_ok=True)
    (package / "DEBIAN").mkdir(parents=True, exist_ok=True)
    (package / "DEBIAN/control").write_text(
        "Package: quokka\nVersion: 1.0\nArchitecture: all\nMaintainer: Bench <bench@example.org>\n"
        f"Description: the {WORD} sample\n"
    )
    _run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(package), str(out)], root.parent)


def _arj(out: Path, root: Path) -> None:
    _run(["arj", "a", "-y", str(out), *TREE], root)


def _tar(out: Path, root: Path, compressor: list[str] | None) -> None:
    tarred = _run(["tar", "-c", "--owner=0", "--group=0", *TREE], root)
    out.write_bytes(_run(compressor, root, tarred) if compressor else tarred)


def _single(compressor: list[str]) -> Callable[[Path, Path], None]:
    def make(out: Path, root: Path) -> None:
        out.write_bytes(_run(compressor, root, SINGLE))

    return make


_COMPRESSORS = {
    "z": ["compress", "-c"], "lzma": ["xz", "--format=lzma", "-c"], "zst": ["zstd", "-q", "-c"],
    "lz4": ["lz4", "-q", "-c"],
}  # fmt: skip
MAKERS: dict[str, Callable[[Path, Path], None]] = {
    "cab": _cab, "iso": _iso, "cpio": _cpio, "ar": _ar, "deb": _deb, "arj": _arj,
    **{fmt: _single(argv) for fmt, argv in _COMPRESSORS.items()},
    **{
        f"tar.{fmt}": lambda out, root, argv=argv: _tar(out, root, argv)
        for fmt, argv in _COMPRESSORS.items()
    },
}  # fmt: skip
# the program each sample needs
PROGRAMS = {
    "cab": "gcab", "iso": "genisoimage", "cpio": "cpio", "ar": "ar", "deb": "dpkg-deb", "arj": "arj",
    "z": "compress", "tar.z": "compress", "lzma": "xz", "tar.lzma": "xz", "zst": "zstd", "tar.zst": "zstd",
    "lz4": "lz4", "tar.lz4": "lz4",
}  # fmt: skip


def make_archive(fmt: str, directory: Path, name: str = "sample") -> Path:
    """A ``fmt`` sample made by its own program in ``directory``; its path (``name``.``fmt``)."""
    directory.mkdir(parents=True, exist_ok=True)
    work = directory / f"{fmt}-work"
    root = tree_in(work)
    out = (directory / f"{name}.{fmt}").resolve()
    MAKERS[fmt](out, root)
    return out


@dataclass(frozen=True)
class CpioEntry:
    """One member of a hand-written cpio: any name, mode (file type included), data (a link's target)."""

    name: str
    mode: int = 0o100644
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


def cpio_newc(entries: Sequence[CpioEntry]) -> bytes:
    """A cpio archive in the newc format with exactly ``entries`` (hostile names, devices, setuid)."""

    def pad(data: bytes) -> bytes:
        return data + b"\0" * (-len(data) % 4)

    out = b""
    for number, entry in enumerate([*entries, CpioEntry("TRAILER!!!", 0)], start=1):
        name = entry.name.encode() + b"\0"
        fields = (number, entry.mode, 0, 0, 1, 0, len(entry.data), 0, 0, *entry.rdev, len(name), 0)
        out += pad(b"070701" + b"".join(b"%08X" % value for value in fields) + name)
        out += pad(entry.data)
    return out + b"\0" * (-len(out) % 512)
