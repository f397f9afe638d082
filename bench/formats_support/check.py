"""Proof that a converted file is what its extension says: a decoder where one is at hand (Pillow,
pypdf, fontTools, ffprobe, zip/tar/7z readers, JSON), else the format's magic bytes; text formats must
also still say the sample's word."""

from __future__ import annotations

import json
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

from PIL import Image
from pypdf import PdfReader

from formats_support.check_3d import MODEL_CHECKS
from formats_support.check_archive import ARCHIVE_OUTPUTS, check_archive
from formats_support.check_av import AV_CHECKS, decodes_whole
from formats_support.check_data import DATA_CHECKS
from formats_support.check_docs import docs_checks
from formats_support.check_fonts import font_checks
from formats_support.check_gps import gps_checks
from formats_support.check_mail import mail_checks
from formats_support.check_pages import pages_checks
from formats_support.check_raw import raw_checks
from formats_support.check_subtitle import SUBTITLE_CHECKS
from formats_support.check_vector import vector_checks

__all__ = ["check_output"]

Check = Callable[[Path], None]

_PILLOW = {
    "png": "PNG", "jpg": "JPEG", "gif": "GIF", "webp": "WEBP", "bmp": "BMP", "tiff": "TIFF", "ico": "ICO",
    "avif": "AVIF", "apng": "PNG", "tga": "TGA", "pcx": "PCX", "sgi": "SGI", "dds": "DDS", "icns": "ICNS",
    "jp2": "JPEG2000", "j2k": "JPEG2000", "msp": "MSP", "xbm": "XBM", "qoi": "QOI",
    "ppm": "PPM", "pgm": "PPM", "pbm": "PPM", "pnm": "PPM", "psd": "PSD", "ras": "SUN", "dcx": "DCX",
}  # fmt: skip
# Image formats Pillow cannot decode: ImageMagick's identify names the format it finds
_MAGICK = {
    "pict": "PICT", "xwd": "XWD", "miff": "MIFF", "mtv": "MTV", "otb": "OTB", "pam": "PAM", "pfm": "PFM",
    "viff": "VIFF", "wbmp": "WBMP", "hdr": "HDR", "fits": "FITS", "dpx": "DPX", "cin": "CIN", "jng": "JNG",
    "mng": "MNG", "sixel": "SIXEL", "aai": "AAI", "avs": "AVS", "cals": "CALS", "ipl": "IPL",
    "jbig": "JBIG", "pgx": "PGX", "ptif": "PTIF", "vicar": "VICAR", "vips": "VIPS",
    "palm": "PALM", "xpm": "XPM",  # not pdb: a Palm eBook here (Calibre's), checked by _pdb
}  # fmt: skip
_MAGIC: dict[str, tuple[int, bytes]] = {
    "heic": (4, b"ftyp"), "heif": (4, b"ftyp"), "ps": (0, b"%!PS"), "eps": (0, b"%!PS-Adobe"),
    "rtf": (0, b"{\\rtf"), "mobi": (60, b"BOOKMOBI"), "azw3": (60, b"BOOKMOBI"), "lit": (0, b"ITOLITLS"),
    "lrf": (0, b"L\x00R\x00F\x00"), "ttf": (0, b"\x00\x01\x00\x00"), "otf": (0, b"OTTO"),
    "woff": (0, b"wOFF"), "woff2": (0, b"wOF2"), "tar.gz": (0, b"\x1f\x8b"), "tar.bz2": (0, b"BZh"),
    "tar.xz": (0, b"\xfd7zXZ"),
    # office: the OLE compound file of the binary formats, EMF's signature, WMF's placeable header or
    # its plain header, and the flat ODF formats' XML
    "doc": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "xls": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
    "ppt": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "emf": (40, b" EMF"), "fodt": (0, b"<?xml"),
    "fods": (0, b"<?xml"), "fodp": (0, b"<?xml"), "fodg": (0, b"<?xml"),
    # issue 23, breadth: the binary templates and slide shows, UOF's single XML file, DIF, SYLK, dBase
    "dot": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "xlt": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
    "pps": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "pot": (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
    "uot": (0, b"<?xml"), "uos": (0, b"<?xml"), "uop": (0, b"<?xml"), "dif": (0, b"TABLE"),
    "slk": (0, b"ID;"), "dbf": (0, b"\x03"), "rb": (0, b"\xb0\x0c\xb0\x0c\x02\x00NUVO"),
    "snb": (0, b"SNBP000B"), "tcr": (0, b"!!8-Bit!!"), "rar": (0, b"Rar!\x1a\x07"),
}  # fmt: skip
_ZIPPED = {
    "docx": "word/document.xml", "odt": "content.xml", "epub": "mimetype", "pptx": "ppt/presentation.xml",
    "htmlz": "index.html", "txtz": "index.txt", "pmlz": "index.pml",
    "xlsx": "xl/workbook.xml", "ods": "content.xml",
    "odp": "content.xml", "odg": "content.xml",
    "dotx": "word/document.xml", "docm": "word/document.xml", "dotm": "word/document.xml",
    "xltx": "xl/workbook.xml", "xlsm": "xl/workbook.xml", "xltm": "xl/workbook.xml",
    "ppsx": "ppt/presentation.xml", "potx": "ppt/presentation.xml", "pptm": "ppt/presentation.xml",
    "potm": "ppt/presentation.xml", "ppsm": "ppt/presentation.xml",
    **dict.fromkeys(
        ("ott", "ots", "otp", "otg", "sxw", "stw", "sxc", "stc", "sxi", "sti", "sxd", "std"), "content.xml"
    ),
}  # fmt: skip
_WORDY = {
    "md", "rst", "org", "html", "tex", "textile", "mediawiki", "dokuwiki", "adoc", "txt", "fb2", "opml",
    "ipynb", "muse", "jira", "dbk", "texi", "icml", "xwiki", "zimwiki", "ms", "csv", "tsv",
    "xhtml", "dif", "slk", "man", "jats", "haddock", "native", "tei", "pml",
}  # fmt: skip
_MEDIA = {
    "3gp", "aac", "aiff", "avi", "flac", "flv", "m4a", "m4b", "mkv", "mov", "mp3", "mp4", "mpeg", "ogg",
    "ogv", "opus", "ts", "wav", "webm", "wma", "wmv", "3g2", "f4v", "asf", "nut", "vob", "m2ts", "mts",
    "mka", "oga", "spx", "ac3", "au", "caf", "w64", "mp2", "wv", "tta",
    "mpg", "qt", "ismv", "mxf", "dv", "gxf", "wtv", "rm", "swf", "smjpeg", "mjpeg", "y4m", "ivf", "m1v",
    "m2v",
    "h264", "hevc", "m4r", "weba", "aif", "eac3", "dts", "thd", "mlp", "ra", "voc", "ircam", "sox", "rso",
    "ast", "mmf", "adx", "aud", "aptx", "sbc", "g722", "gsm", "c2",
}  # fmt: skip


def _pillow(kind: str) -> Check:
    def check(path: Path) -> None:
        with Image.open(path) as image:
            if image.format != kind and not (kind == "PNG" and image.format == "PNG"):
                raise ValueError(f"Pillow reads it as {image.format}, not {kind}")
            image.load()

    return check


def _identify(kind: str) -> Check:
    def check(path: Path) -> None:
        argv = ["identify", "-format", "%m %w %h\n", f"{kind}:{path}"]
        found = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
        if found[:1] != [kind] or int(found[1]) < 1:
            raise ValueError(f"identify reads it as {found[:3]}, not {kind}")

    return check


def _jxl(path: Path) -> None:
    head = path.read_bytes()[:12]
    if not (head[:2] == b"\xff\x0a" or head == b"\x00\x00\x00\x0cJXL \r\n\x87\n"):
        raise ValueError("no JPEG XL signature")


def _pdf(path: Path) -> None:
    if len(PdfReader(path).pages) < 1:
        raise ValueError("a PDF without pages")


def _svg(path: Path) -> None:
    if b"<svg" not in path.read_bytes()[:4096]:
        raise ValueError("no <svg element")


def _pdb(path: Path) -> None:
    data = path.read_bytes()
    if len(data) < 78 or (not data[60:68].isalnum() and not data[60:68].strip(b"\x00")):
        raise ValueError("no Palm database header")


def _wmf(path: Path) -> None:
    head = path.read_bytes()[:4]
    if head not in (b"\xd7\xcd\xc6\x9a", b"\x01\x00\x09\x00", b"\x02\x00\x09\x00"):
        raise ValueError(f"not a WMF file (starts {head!r})")


def _media(path: Path) -> None:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_format", str(path)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    if not json.loads(out).get("streams"):
        raise ValueError("ffprobe finds no stream")


def _magic(offset: int, magic: bytes) -> Check:
    def check(path: Path) -> None:
        if path.read_bytes()[offset : offset + len(magic)] != magic:
            raise ValueError(f"no {magic!r} signature")

    return check


def _zipped(member: str) -> Check:
    def check(path: Path) -> None:
        if member not in zipfile.ZipFile(path).namelist():
            raise ValueError(f"no {member} inside")

    return check


def _font(path: Path) -> None:
    from fontTools.ttLib import TTFont

    with TTFont(path) as font:
        if "cmap" not in font:
            raise ValueError("a font without cmap")


def check_output(path: Path, fmt: str, word: str | None) -> None:
    """Raise ValueError (or the decoder's error) unless ``path`` is a good ``fmt`` file.

    ``word``: a word the source held that a text output must still hold (None: not checked).
    """
    if path.stat().st_size == 0:
        raise ValueError("empty file")
    checks: list[Check] = []
    if fmt in _PILLOW:
        checks.append(_pillow(_PILLOW[fmt]))
    if fmt in _MAGICK:
        checks.append(_identify(_MAGICK[fmt]))
    if fmt in ARCHIVE_OUTPUTS:
        checks.append(lambda p: check_archive(p, fmt))
    elif fmt in _MAGIC:
        checks.append(_magic(*_MAGIC[fmt]))
    if fmt in ("ttf", "otf", "woff", "woff2"):
        checks.append(_font)
    if fmt in _ZIPPED:
        checks.append(_zipped(_ZIPPED[fmt]))
    if fmt in _MEDIA:
        checks.append(_media)
    checks += [AV_CHECKS.get(fmt, decodes_whole)] if fmt in _MEDIA | AV_CHECKS.keys() else []
    checks += {"jxl": [_jxl], "pdf": [_pdf], "svg": [_svg], "pdb": [_pdb], "wmf": [_wmf]}.get(fmt, [])
    if fmt in MODEL_CHECKS:
        checks.append(MODEL_CHECKS[fmt])
    checks += docs_checks(path, fmt, word)
    checks += pages_checks(path, fmt)
    if fmt in DATA_CHECKS:
        checks.append(lambda p: DATA_CHECKS[fmt](p, word))
    checks += [SUBTITLE_CHECKS[fmt]] if fmt in SUBTITLE_CHECKS else []
    if fmt == "ipynb":
        checks.append(lambda p: json.loads(p.read_text())["cells"] and None)
    checks += mail_checks(path, fmt)
    checks += raw_checks(path, fmt)
    checks += gps_checks(path, fmt)
    checks += vector_checks(fmt)
    checks += font_checks(path, fmt)
    if not checks and fmt not in _WORDY:
        raise ValueError(f"no check known for {fmt}")
    for check in checks:
        check(path)
    if word and fmt in _WORDY and word not in path.read_text(encoding="utf-8", errors="replace"):
        raise ValueError(f"the text lost the word {word!r}")
    if word and fmt in ("docx", "odt", "epub", "pptx", "htmlz", "txtz", "dotx", "docm", "ott", "sxw"):
        with zipfile.ZipFile(path) as archive:
            if not any(word.encode() in archive.read(name) for name in archive.namelist()):
                raise ValueError(f"the document lost the word {word!r}")
