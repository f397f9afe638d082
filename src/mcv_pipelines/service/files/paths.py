"""File names from users made safe, and the format a file name implies."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from mcv_pipelines.service.engines.files import COMPOUND_EXTENSIONS

__all__ = ["file_format", "safe_filename"]

_SEPARATORS = re.compile(r"[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def safe_filename(name: str, default: str = "file") -> str:
    """The last component of ``name`` without control characters or leading dots: no traversal."""
    base = _SEPARATORS.split(name)[-1]
    base = _CONTROL.sub("", base).strip().lstrip(".")
    return base[:200] or default


def file_format(name: str) -> str:
    """The lowercase extension of ``name`` (``tar.gz`` counts as one), "" when there is none."""
    lower = name.lower()
    for multi in COMPOUND_EXTENSIONS:
        if lower.endswith("." + multi):
            return multi
    suffix = PurePosixPath(lower).suffix
    return suffix[1:] if suffix else ""
