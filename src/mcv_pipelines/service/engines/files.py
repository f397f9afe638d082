"""Output file names: sanitising names that came from users, and the ``filename`` option.

A name from a user (an uploaded file, the ``filename`` option) must never leave ``output_dir``: only
its last path component is kept, control and reserved characters are replaced, and ``.``/``..`` or an
empty result fall back to a default. ``filename`` may hold a printf-style ``%d`` (``page-%d.png``,
``page-%03d.png``) that numbers the files when a task makes several.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

# A tar's compressed forms, each one extension of two parts (the service's file names use them too)
COMPOUND_EXTENSIONS = ("tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz4", "tar.lzma", "tar.lz", "tar.z")

__all__ = [
    "COMPOUND_EXTENSIONS", "OutputNames", "apply_counter", "output_name", "safe_filename", "split_extension",
]  # fmt: skip

_RESERVED = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')
_COUNTER = re.compile(r"%(0?\d*)d")
_MAX_NAME = 200


def safe_filename(name: str, fallback: str = "file") -> str:
    """The last path component of ``name`` with reserved characters replaced by ``_``.

    >>> safe_filename("../../etc/passwd")
    'passwd'
    >>> safe_filename("in/re:port.pdf")
    're_port.pdf'
    """
    base = re.split(r"[/\\]", unicodedata.normalize("NFC", name))[-1]
    cleaned = _RESERVED.sub("_", base).strip().lstrip(".").strip()
    if not cleaned:
        return fallback
    if len(cleaned) > _MAX_NAME:
        stem, ext = split_extension(cleaned)
        cleaned = stem[: _MAX_NAME - len(ext)] + ext
    return cleaned


def split_extension(name: str) -> tuple[str, str]:
    """``("photo", ".jpg")``; double extensions of archives stay whole (``("a", ".tar.gz")``)."""
    lowered = name.lower()
    for double in (f".{compound}" for compound in COMPOUND_EXTENSIONS):
        if lowered.endswith(double) and len(name) > len(double):
            return name[: -len(double)], name[-len(double) :]
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]


def apply_counter(pattern: str, number: int) -> str:
    """Fill the printf-style ``%d`` (or ``%03d``) of ``pattern``; ``%%`` stays a literal ``%``."""
    parts = pattern.split("%%")
    filled = [_COUNTER.sub(lambda m: format(number, m.group(1) + "d"), part) for part in parts]
    return "%".join(filled)


def output_name(filename: str | None, number: int, several: bool, default_stem: str, extension: str) -> str:
    """The safe name of output file ``number`` (1-based), before it is made unique in its directory.

    With a ``filename`` its ``%d`` takes the number, or, lacking one, ``-<number>`` goes before the
    extension when the task makes ``several`` files; without one ``default_stem`` gets ``extension``.
    """
    ext = "." + extension if extension else ""
    if filename and filename.strip():
        if _COUNTER.search(filename):
            name = apply_counter(filename, number)
        elif several:
            stem, suffix = split_extension(filename)
            name = f"{stem}-{number}{suffix}"
        else:
            name = filename
        return safe_filename(name, fallback=f"output{ext}")
    return safe_filename(default_stem, fallback="output") + ext


class OutputNames:
    """Hands out unique, safe paths in ``output_dir`` for the files of one task.

    ``filename`` is the task's option (may be None); ``count`` how many files the task will make, so a
    ``filename`` without ``%d`` still yields distinct names (``out-1.png``, ``out-2.png``).
    """

    def __init__(self, output_dir: Path, filename: str | None, count: int) -> None:
        self._dir = output_dir
        self._filename = filename
        self._count = count
        self._used: set[str] = set()
        self._number = 0

    def next(self, default_stem: str, extension: str) -> Path:
        """The path of the next file; ``default_stem`` (usually the input's stem) when no ``filename``."""
        self._number += 1
        name = output_name(self._filename, self._number, self._count > 1, default_stem, extension)
        return self._dir / self._unique(name)

    def _unique(self, name: str) -> str:
        candidate = name
        stem, suffix = split_extension(name)
        n = 0
        while candidate in self._used or (self._dir / candidate).exists():
            n += 1
            candidate = f"{stem}-{n}{suffix}"
        self._used.add(candidate)
        return candidate
