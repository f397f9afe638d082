"""Checks of the audio and video formats issue 47 added to the ffmpeg engine. Each is decoded whole by
ffmpeg (no error may be printed, and sound or pictures must come out) and read by a second reader
that is not ffmpeg: Python's aifc module and sox for AIFF-C, the container's own structure (ISO boxes,
MPEG-TS packets, EBML, Ogg pages, RIFF) or the codec's frame syncs (H.263, AV1 OBUs, LOAS, mSBC,
G.723.1) for the rest. DFPWM has no header, sync or other reader: ffmpeg's decode is its only check."""

from __future__ import annotations

import struct
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path

__all__ = ["AV_CHECKS", "decodes_whole"]

Check = Callable[[Path], None]


# What ffmpeg 5.1 prints on reaching the end of a file its own muxer wrote, every frame decoded:
# wsaud's reader ends on an I/O error, smjpeg's on the zero chunk that closes the file.
_END_NOISE = {"aud": ("Input/output error",), "smjpeg": ("unknown chunk 0", "Invalid data found when")}


def decodes_whole(path: Path, end_noise: tuple[str, ...] = ()) -> None:
    """ffmpeg decodes every stream of ``path`` to the end without an error (``end_noise``: the lines a
    demuxer prints at the end, let be), and every stream has packets."""
    done = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "null", "-"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    # the null sink's own complaints (a timestamp it was handed twice) are not the file's
    lines = [line for line in done.stderr.splitlines() if not line.startswith("[null @")]
    lines = [line for line in lines if not line.strip().startswith("Last message repeated")]
    errors = [line for line in lines if not any(noise in line for noise in end_noise)]
    if done.returncode or errors:
        raise ValueError(f"ffmpeg decodes it with errors: {' '.join(errors)[:200]}")
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=codec_type,nb_read_packets",
         "-of", "csv=p=0", str(path)],
        capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    counts = [row.split(",")[:2] for row in probe if row.count(",")]
    media = [count for kind, count in counts if kind in ("audio", "video")]
    if not media or not all(count.isdigit() and int(count) > 0 for count in media):
        raise ValueError(f"a stream without packets: {probe}")


def _aifc(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import aifc

        with aifc.open(str(path)) as sound:
            if sound.getcomptype() == b"NONE":
                raise ValueError("plain AIFF, not AIFF-C")
            if sound.getnframes() < 1000:
                raise ValueError("almost no sound")
    subprocess.run(["sox", str(path), "-n", "stat"], check=True, capture_output=True)


def _iso_boxes(path: Path) -> None:
    data, seen, at = path.read_bytes(), set(), 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at : at + 8])
        size = struct.unpack(">Q", data[at + 8 : at + 16])[0] if size == 1 else size or len(data) - at
        if size < 8:
            raise ValueError(f"a box of {size} bytes at {at}")
        seen.add(kind)
        at += size
    if at != len(data) or not {b"ftyp", b"moov"} <= seen:
        raise ValueError(f"ISO boxes {sorted(seen)} do not fill the file")


def _transport(path: Path) -> None:
    data = path.read_bytes()
    if len(data) % 188 or any(data[i] != 0x47 for i in range(0, len(data), 188)):
        raise ValueError("not a run of 188-byte MPEG-TS packets")


def _frames(size: int, sync: Callable[[bytes], bool]) -> Check:
    def check(path: Path) -> None:
        data = path.read_bytes()
        if len(data) % size or not all(sync(data[i : i + size]) for i in range(0, len(data), size)):
            raise ValueError(f"not a run of {size}-byte frames")

    return check


def _starts(offset: int, magic: bytes, *more: tuple[int, bytes]) -> Check:
    def check(path: Path) -> None:
        data = path.read_bytes()
        for at, expected in ((offset, magic), *more):
            if data[at : at + len(expected)] != expected:
                raise ValueError(f"no {expected!r} at {at}")

    return check


def _ebml(path: Path) -> None:
    data = path.read_bytes()
    if not data.startswith(b"\x1a\x45\xdf\xa3") or b"\x42\x82\x88matroska" not in data[:64]:
        raise ValueError("no EBML header of DocType matroska")


def _ogg(path: Path) -> None:
    data = path.read_bytes()
    if not data.startswith(b"OggS") or b"\x80theora" not in data:
        raise ValueError("not Ogg pages of Theora")


_SECOND: dict[str, Check] = {
    "aifc": _aifc,
    "m4v": _iso_boxes,
    "isma": _iso_boxes,
    "mts": _transport,
    "mk3d": _ebml,
    "ogx": _ogg,
    "h263": _starts(0, b"\x00\x00\x80"),
    "obu": _starts(0, b"\x12\x00"),  # a temporal delimiter opens an AV1 low-overhead stream
    "amv": _starts(0, b"RIFF", (8, b"AMV ")),
    "cpk": _starts(0, b"FILM", (16, b"FDSC")),
    "apm": _starts(0, b"\x00\x20", (20, b"vs12")),
    "latm": _starts(0, b"\x56"),  # the 11-bit LOAS sync 0x2B7
    "msbc": _frames(57, lambda frame: frame[0] == 0xAD),
    "tco": _frames(24, lambda frame: frame[0] & 3 == 0),  # 6.3 kbit/s frames of 24 bytes
    "dfpwm": lambda path: None,
}


def _both(second: Check) -> Check:
    def check(path: Path) -> None:
        decodes_whole(path)
        second(path)

    return check


AV_CHECKS: dict[str, Check] = {fmt: _both(second) for fmt, second in _SECOND.items()} | {
    fmt: lambda path, noise=noise: decodes_whole(path, noise) for fmt, noise in _END_NOISE.items()
}
