"""The image long tail ImageMagick converts and Pillow does not: listing names, coders, and what this
ImageMagick build really reads and writes (``convert -list format``).

Only formats Pillow cannot read are decoded here and only formats Pillow cannot write are encoded, so
Pillow stays the default wherever it does a pair. Left out on purpose: coders that read other files or
URLs (blocked by the policy), raw pixel dumps that need their size given (rgb, gray, yuv, uyvy, mono),
formats that resize the picture to a fixed size (pcd, hrz, fax) or refuse most sizes (rgf: under
255x255), art (ImageMagick 6 cannot read back all it writes: a 1024-pixel-wide ART) and writing psb
(nor a palette image's PSB; psb is read, as xcf, GIMP's own, is: issue 47), PostScript and
PDF (Ghostscript's, and blocked by Debian's policy) and camera raw (no way to make a sample here).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from types import MappingProxyType

__all__ = ["ENCODE_OPTIONS", "MAGICK_CODERS", "magick_decodes", "magick_encodes", "supported_coders"]

# listing name -> ImageMagick coder; read, written or both as this build's coder list says. Not PDB:
# a .pdb is a Palm eBook (Calibre's) or a protein structure far more often than a Palm image database.
_CODERS = {
    "pict": "PICT", "xwd": "XWD", "miff": "MIFF", "mtv": "MTV", "otb": "OTB", "pam": "PAM", "pfm": "PFM",
    "viff": "VIFF", "wbmp": "WBMP", "hdr": "HDR", "fits": "FITS", "dpx": "DPX", "cin": "CIN", "jng": "JNG",
    "mng": "MNG", "sixel": "SIXEL", "aai": "AAI", "avs": "AVS", "cals": "CALS", "ipl": "IPL",
    "jbig": "JBIG", "pgx": "PGX", "ptif": "PTIF", "vicar": "VICAR", "vips": "VIPS",
    "palm": "PALM", "xpm": "XPM", "mac": "MAC", "tim": "TIM",
    # Pillow reads these but has no writer: ImageMagick writes them (not CUR: its CUR is an icon)
    "psd": "PSD", "ras": "SUN", "dcx": "DCX",
    # read only (issue 47): Photoshop's large document format and GIMP's
    "psb": "PSB", "xcf": "XCF",
    # read only (issue 47): the Utah Raster Toolkit's run-length images and WordPerfect's raster
    # graphics (a WPG's PostScript records would go to Ghostscript: blocked, as PS is everywhere here)
    "rle": "RLE", "wpg": "WPG",
    # read only: MATLAB's level 5 MAT-file holding one image matrix (grey, or RGB as three planes);
    # Debian's ImageMagick 6.9.11 lists MAT as written, but its writer dies on a missing symbol
    "mat": "MAT",
}  # fmt: skip
_READ_ONLY = frozenset({"psb", "mat"})
MAGICK_CODERS: Mapping[str, str] = MappingProxyType(_CODERS)
# Options before the output: DCX pages with an alpha plane are PCX that Pillow (the dcx reader) refuses
ENCODE_OPTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"dcx": ("-background", "white", "-alpha", "remove", "-alpha", "off")}
)

_FORMAT_LINE = re.compile(r"^\s*([A-Z0-9]+)\*?\s+\S+\s+([r-])([w-])[+-]", re.MULTILINE)


def supported_coders(listing: str) -> dict[str, str]:
    """Coder -> its mode (``rw``, ``r-``, ``-w``) from the output of ``convert -list format``."""
    return {match[1]: match[2] + match[3] for match in _FORMAT_LINE.finditer(listing)}


def magick_decodes(coders: Mapping[str, str], pillow_reads: Collection[str]) -> tuple[str, ...]:
    """Listing names this build reads and Pillow (``pillow_reads``) does not."""
    return tuple(
        name
        for name, coder in _CODERS.items()
        if name not in pillow_reads and coders.get(coder, "--")[0] == "r"
    )


def magick_encodes(coders: Mapping[str, str], pillow_writes: Collection[str]) -> tuple[str, ...]:
    """Listing names this build writes and Pillow (``pillow_writes``) does not."""
    return tuple(
        name
        for name, coder in _CODERS.items()
        if name not in pillow_writes and name not in _READ_ONLY and coders.get(coder, "--")[1] == "w"
    )
