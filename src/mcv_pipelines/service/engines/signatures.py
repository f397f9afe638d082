"""The leading bytes of the file formats that have a reliable signature, and the check of a task's
input against the format its name or ``input_format`` claims (issue 23).

A task's ``input_format`` comes from the file's extension. A PNG named ``.pdf`` would otherwise reach
a PDF engine and fail deep inside it with that program's own words (or a stack trace); checked here
first, it fails with INVALID_INPUT_FILE naming both what the name says and what the bytes are.

Only formats whose files always start the same way are checked. Text formats (md, html, svg, csv,
fodt...) and formats without a dependable signature pass through: mp3 and aac (a bare frame sync),
MPEG program and transport streams (sync bytes that also start other data), and the old binary
office formats (doc, xls, ppt): a ``.xls`` is often an HTML or CSV export and a ``.doc`` an RTF,
which LibreOffice opens as they are, so refusing them would break files that convert today.

>>> mislabelled("png", b"\\x89PNG\\r\\n\\x1a\\n....")
>>> mislabelled("pdf", b"\\x89PNG\\r\\n\\x1a\\n....")
'a PNG image'
>>> mislabelled("md", b"\\x89PNG\\r\\n\\x1a\\n....")  # no signature: not checked
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FORMAT_SIGNATURES",
    "HEAD_BYTES",
    "SIGNATURES",
    "Signature",
    "describe",
    "expected_kind",
    "mislabelled",
    "mislabelled_input",
    "suggested_format",
]

HEAD_BYTES = 2048  # enough for every signature below (a PDF header may sit anywhere in the first 1024)

Test = Callable[[bytes], bool]


def _starts(*prefixes: bytes, at: int = 0) -> Test:
    return lambda head: any(head[at : at + len(prefix)] == prefix for prefix in prefixes)


def _riff(form: bytes, *magics: bytes) -> Test:
    return lambda head: head[:4] in (magics or (b"RIFF",)) and head[8:12] == form


def _iso_media(head: bytes) -> bool:
    # ISO base media (MP4, QuickTime, 3GP, HEIF, AVIF): a box size, then a box type; QuickTime files
    # may open with a box other than ftyp.
    return head[4:8] in (b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot")


def _pdf(head: bytes) -> bool:
    return b"%PDF-" in head[:1024]  # readers accept a header after some leading junk


def _bmp(head: bytes) -> bool:
    # "BM" alone starts words too: the size of the info header must be one that exists
    return head[:2] == b"BM" and int.from_bytes(head[14:18], "little") in (12, 40, 52, 56, 64, 108, 124)


def _netpbm(head: bytes) -> bool:
    return len(head) > 2 and head[0:1] == b"P" and head[1:2] in b"1234567" and head[2:3].isspace()


def _aiff(head: bytes) -> bool:
    return head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC")


def _flac(head: bytes) -> bool:
    return head[:4] == b"fLaC" or (head[:3] == b"ID3" and b"fLaC" in head)


@dataclass(frozen=True, slots=True)
class Signature:
    """What files of one kind start with: ``name`` is said to the user, ``extension`` is what such a
    file is usually named."""

    name: str
    extension: str
    test: Test


# In the order ``describe`` tries them; the first that matches names the bytes.
SIGNATURES: Mapping[str, Signature] = {
    "png": Signature("a PNG image", "png", _starts(b"\x89PNG\r\n\x1a\n")),
    "jpeg": Signature("a JPEG image", "jpg", _starts(b"\xff\xd8\xff")),
    "gif": Signature("a GIF image", "gif", _starts(b"GIF87a", b"GIF89a")),
    "webp": Signature("a WebP image", "webp", _riff(b"WEBP")),
    "tiff": Signature("a TIFF image", "tiff", _starts(b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")),
    "jxl": Signature("a JPEG XL image", "jxl", _starts(b"\xff\x0a", b"\x00\x00\x00\x0cJXL \r\n\x87\n")),
    "jp2": Signature("a JPEG 2000 image", "jp2", _starts(b"\x00\x00\x00\x0cjP  \r\n\x87\n", b"\xffO\xffQ")),
    "psd": Signature("a Photoshop image", "psd", _starts(b"8BPS")),
    "exr": Signature("an OpenEXR image", "exr", _starts(b"v/1\x01")),
    "qoi": Signature("a QOI image", "qoi", _starts(b"qoif")),
    "orf": Signature("an Olympus raw image", "orf", _starts(b"IIRO", b"IIRS", b"MMOR")),
    "rw2": Signature("a Panasonic raw image", "rw2", _starts(b"IIU\x00")),
    "raf": Signature("a Fujifilm raw image", "raf", _starts(b"FUJIFILMCCD-RAW")),
    "ico": Signature("a Windows icon", "ico", _starts(b"\x00\x00\x01\x00")),
    "pdf": Signature("a PDF document", "pdf", _pdf),
    # PostScript; with a ^D first, a printer job's PJL header first, or an EPS's DOS binary header
    "postscript": Signature("a PostScript document", "ps",
                            _starts(b"%!", b"\x04%!", b"\x1b%-12345X", b"\xc5\xd0\xd3\xc6")),
    "zip": Signature("a zip archive (as zip, docx, xlsx, pptx, odt, epub are)", "zip",
                     _starts(b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")),
    "7z": Signature("a 7z archive", "7z", _starts(b"7z\xbc\xaf\x27\x1c")),
    "rar": Signature("a RAR archive", "rar", _starts(b"Rar!\x1a\x07")),
    "gzip": Signature("gzip data", "gz", _starts(b"\x1f\x8b")),
    "bzip2": Signature("bzip2 data", "bz2", _starts(b"BZh")),
    "xz": Signature("xz data", "xz", _starts(b"\xfd7zXZ\x00")),
    "zstd": Signature("zstd data", "zst", _starts(b"\x28\xb5\x2f\xfd")),
    "tar": Signature("a tar archive", "tar", _starts(b"ustar", at=257)),
    "mobi": Signature("a Mobipocket e-book", "mobi", _starts(b"BOOKMOBI", b"TEXtREAd", at=60)),
    "lit": Signature("a Microsoft Reader e-book", "lit", _starts(b"ITOLITLS")),
    "lrf": Signature("a Sony reader e-book", "lrf", _starts(b"L\x00R\x00F\x00")),
    "djvu": Signature("a DjVu document", "djvu", _starts(b"AT&TFORM")),
    "truetype": Signature("a TrueType font", "ttf", _starts(b"\x00\x01\x00\x00", b"true")),
    "opentype": Signature("an OpenType (CFF) font", "otf", _starts(b"OTTO")),
    "woff": Signature("a WOFF font", "woff", _starts(b"wOFF")),
    "woff2": Signature("a WOFF2 font", "woff2", _starts(b"wOF2")),
    "iso-media": Signature("an ISO media file (as mp4, mov, 3gp, heic, avif are)", "mp4", _iso_media),
    "ogg": Signature("an Ogg stream", "ogg", _starts(b"OggS")),
    "flac": Signature("FLAC audio", "flac", _flac),
    "wav": Signature("WAV audio", "wav", _riff(b"WAVE", b"RIFF", b"RIFX", b"RF64", b"BW64")),
    "w64": Signature("Sony Wave64 audio", "w64", _starts(b"riff\x2e\x91\xcf\x11")),
    "avi": Signature("an AVI video", "avi", _riff(b"AVI ")),
    "aiff": Signature("AIFF audio", "aiff", _aiff),
    "caf": Signature("Core Audio (CAF) audio", "caf", _starts(b"caff")),
    "au": Signature("Sun audio", "au", _starts(b".snd")),
    "wavpack": Signature("WavPack audio", "wv", _starts(b"wvpk")),
    "tta": Signature("TTA audio", "tta", _starts(b"TTA1")),
    "midi": Signature("a MIDI file", "mid", _starts(b"MThd")),
    "matroska": Signature("a Matroska/WebM file", "mkv", _starts(b"\x1a\x45\xdf\xa3")),
    "asf": Signature("an ASF (Windows Media) file", "wmv", _starts(b"\x30\x26\xb2\x75\x8e\x66\xcf\x11")),
    "flv": Signature("a Flash video", "flv", _starts(b"FLV\x01")),
    "nut": Signature("a NUT file", "nut", _starts(b"nut/multimedia container")),
    "emf": Signature("an EMF drawing", "emf", _starts(b" EMF", at=40)),
    "wmf": Signature("a WMF drawing", "wmf",
                     _starts(b"\xd7\xcd\xc6\x9a", b"\x01\x00\t\x00", b"\x02\x00\t\x00")),
    "gltf-binary": Signature("a binary glTF scene", "glb", _starts(b"glTF")),
    "bmp": Signature("a BMP image", "bmp", _bmp),
    "netpbm": Signature("a Netpbm image", "ppm", _netpbm),
}  # fmt: skip

_ZIP_BASED = (
    "zip", "docx", "docm", "dotx", "xlsx", "xlsm", "xltx", "pptx", "pptm", "potx", "ppsx", "vsdx",
    "odt", "ods", "odp", "odg", "odf", "ott", "ots", "otp", "sxw", "sxc", "sxi", "epub", "htmlz", "txtz",
    "cbz", "xps", "oxps", "3mf", "kmz", "pages", "numbers", "key", "jar", "apk",
)  # fmt: skip
_ISO_MEDIA = (
    "mp4",
    "m4a",
    "m4v",
    "m4b",
    "m4p",
    "mov",
    "qt",
    "3gp",
    "3g2",
    "f4v",
    "heic",
    "heif",
    "avif",
    "cr3",
)
_TIFF_BASED = ("tiff", "dng", "nef", "nrw", "cr2", "arw", "srw", "pef")

# The signatures a file of each format (as the listing spells it) may start with.
FORMAT_SIGNATURES: Mapping[str, tuple[str, ...]] = {
    "png": ("png",), "apng": ("png",), "jpg": ("jpeg",), "gif": ("gif",), "webp": ("webp",),
    **{name: ("tiff",) for name in _TIFF_BASED},
    "jxl": ("jxl",), "jp2": ("jp2",), "j2k": ("jp2",), "psd": ("psd",), "exr": ("exr",), "qoi": ("qoi",),
    "orf": ("orf",), "rw2": ("rw2",), "raf": ("raf",), "ico": ("ico",), "bmp": ("bmp",),
    "pbm": ("netpbm",), "pgm": ("netpbm",), "ppm": ("netpbm",), "pnm": ("netpbm",),
    "pdf": ("pdf",), "ai": ("pdf", "postscript"), "ps": ("postscript",), "eps": ("postscript",),
    **{name: ("zip",) for name in _ZIP_BASED},
    "7z": ("7z",), "rar": ("rar",), "cbr": ("rar",),
    "gz": ("gzip",), "tar.gz": ("gzip",), "tgz": ("gzip",), "svgz": ("gzip",),
    "bz2": ("bzip2",), "tar.bz2": ("bzip2",), "xz": ("xz",), "tar.xz": ("xz",),
    "zst": ("zstd",), "tar.zst": ("zstd",), "tar": ("tar",),
    "mobi": ("mobi",), "azw3": ("mobi",), "lit": ("lit",), "lrf": ("lrf",), "djvu": ("djvu",),
    "ttf": ("truetype", "opentype"), "otf": ("opentype", "truetype"), "woff": ("woff",), "woff2": ("woff2",),
    **{name: ("iso-media",) for name in _ISO_MEDIA},
    "ogg": ("ogg",), "oga": ("ogg",), "ogv": ("ogg",), "opus": ("ogg",), "spx": ("ogg",),
    "flac": ("flac",), "wav": ("wav",), "w64": ("w64",), "avi": ("avi",), "aiff": ("aiff",),
    "caf": ("caf",), "au": ("au",), "wv": ("wavpack",), "tta": ("tta",), "mid": ("midi",),
    "mkv": ("matroska",), "mka": ("matroska",), "webm": ("matroska",),
    "wmv": ("asf",), "wma": ("asf",), "asf": ("asf",), "flv": ("flv",), "nut": ("nut",),
    "emf": ("emf",), "wmf": ("wmf",), "glb": ("gltf-binary",),
}  # fmt: skip


def mislabelled_input(path: Path, fmt: str, said_by: str = "its extension") -> str | None:
    """None when the file at ``path`` may be a ``fmt`` file, else the message of its INVALID_INPUT_FILE:
    what ``said_by`` (its extension, or ``input_format``) says and what its bytes are.

    The message reads: ``photo.pdf is not a pdf file: its extension says pdf (a PDF document), but its
    bytes are a PNG image. Rename it to .png or set input_format to png.``
    """
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    found = mislabelled(fmt, head)
    if found is None:
        return None
    hint = suggested_format(head)
    advice = (
        f"Rename it to .{hint} or set input_format to {hint}."
        if hint and FORMAT_SIGNATURES.get(hint) != FORMAT_SIGNATURES.get(fmt)
        else "Check that the right file was uploaded."
    )
    said = f"{said_by} says {fmt} ({expected_kind(fmt)})"
    return f"{path.name} is not a {fmt} file: {said}, but its bytes are {found}. {advice}"


def describe(head: bytes) -> str:
    """What the bytes ``head`` look like, for a message: a known kind, text, or their first bytes."""
    if not head:
        return "empty (no bytes at all)"
    for key, signature in SIGNATURES.items():
        if signature.test(head):
            if key == "iso-media" and head[4:8] == b"ftyp" and head[8:12].isascii():
                return f"{signature.name}, brand {head[8:12].decode().strip()!r}"
            return signature.name
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or _is_text(head):
        return "text"
    return f"unrecognised binary data (starting {head[:8].hex(' ')})"


def mislabelled(fmt: str, head: bytes) -> str | None:
    """None when ``head`` may start a ``fmt`` file (or ``fmt`` has no signature to check), else what the
    bytes look like instead (``describe``)."""
    expected = FORMAT_SIGNATURES.get(fmt)
    if expected is None or any(SIGNATURES[name].test(head) for name in expected):
        return None
    return describe(head)


def expected_kind(fmt: str) -> str:
    """What a ``fmt`` file is, in the words of its signature (``a PNG image``)."""
    return " or ".join(SIGNATURES[name].name for name in FORMAT_SIGNATURES.get(fmt, ()))


def suggested_format(head: bytes) -> str | None:
    """The extension files starting like ``head`` usually have, when one signature names them."""
    for signature in SIGNATURES.values():
        if signature.test(head):
            return signature.extension
    return None


def _is_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:  # cut in the middle of a character at the end is still text
        return exc.start >= len(head) - 3 and exc.reason.startswith("unexpected end")
    return True
