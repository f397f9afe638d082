"""Formats: from a file name, URL or storage key, and what a processing task makes of its input.

Formats are lowercase extensions without the dot, as the listing spells them (``jpg``, ``tar.gz``).

>>> format_from_name("photo.JPG"), format_from_name("a.tar.gz"), format_from_name("README")
('jpg', 'tar.gz', None)
>>> output_format_of("optimize", "pdf", None), output_format_of("merge", "png", None)
('pdf', 'pdf')
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import unquote, urlsplit

__all__ = [
    "COMPOUND_EXTENSIONS",
    "FORMAT_ALIASES",
    "format_from_name",
    "listing_formats",
    "normalise_format",
    "output_format_of",
]

# Spellings the listing does not use, mapped to the one it does.
_ALIASES = {"jpeg": "jpg", "jpe": "jpg"}
FORMAT_ALIASES: Mapping[str, str] = MappingProxyType(_ALIASES)
# Two-part extensions that name one format.
COMPOUND_EXTENSIONS = frozenset(
    {"tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz", "tar.z", "tar.lz4", "tar.lzma"}
)
# Operations whose output keeps the input's format.
_KEEPS_FORMAT = frozenset({"optimize", "watermark", "metadata/write"})
# Operations the listing keys on a fixed input or output format (engines/base.py conventions).
_LISTING_INPUT = {"archive": "any", "command": "any", "capture-website": "website"}
_LISTING_OUTPUT = {"command": "any"}


def normalise_format(fmt: str) -> str:
    """``.JPEG`` -> ``jpg``: lowercase, no leading dot, the listing's spelling."""
    # Dots and spaces in any order at the start (" .tif"): a snapshot's formats must come out the same
    # when normalised again, or it would not read back as written.
    fmt = fmt.lstrip(". \t\r\n\f\v").rstrip().lower()
    return _ALIASES.get(fmt, fmt)


def format_from_name(name: str) -> str | None:
    """The format a file name, URL (its path) or storage key implies; None without an extension."""
    if "://" in name:
        name = unquote(urlsplit(name).path)
    base = posixpath.basename(name.replace("\\", "/").rstrip("/"))
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem or not ext or " " in ext:
        return None  # no extension, a dotfile (".env") or a trailing dot
    ext = ext.lower()
    head, dot2, before = stem.rpartition(".")
    if dot2 and head and f"{before.lower()}.{ext}" in COMPOUND_EXTENSIONS:
        return f"{before.lower()}.{ext}"
    return normalise_format(ext)


def output_format_of(operation: str, input_format: str | None, output_format: str | None) -> str | None:
    """The format a processing task produces; None when it cannot be known (``command``)."""
    if operation in _KEEPS_FORMAT:
        return input_format
    if operation == "merge":
        return "pdf"
    if operation == "metadata":
        return "json"
    if operation == "command":
        return None
    return normalise_format(output_format) if output_format else None


def listing_formats(
    operation: str, input_format: str | None, output_format: str | None
) -> tuple[str | None, str | None]:
    """The (input, output) formats the listing uses for a task of ``operation``.

    archive and command accept ``any`` input; capture-website's input is ``website``; optimize,
    watermark and metadata/write are listed with output = input; merge with output pdf.
    """
    fin = _LISTING_INPUT.get(operation, normalise_format(input_format) if input_format else None)
    if operation in _LISTING_OUTPUT:
        return fin, _LISTING_OUTPUT[operation]
    return fin, output_format_of(operation, fin, output_format)
