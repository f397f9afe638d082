"""Task error codes the core engines use, and the one place library exceptions become ``EngineError``.

Pillow, pypdf and the archive modules raise their own exceptions (``UnidentifiedImageError``,
``SyntaxError`` for a broken header, ``PdfReadError``, ``OSError`` for a truncated file ...). A user
should see a code and a sentence, never one of those, so every engine runs its work inside
``library_errors``.
"""

from __future__ import annotations

import lzma
import re
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from PIL import Image
from pypdf.errors import PyPdfError

from mcv_pipelines.service.engines.base import EngineError

__all__ = [
    "CANCELLED",
    "CONVERSION_FAILED",
    "INVALID_INPUT_FILE",
    "INVALID_OPTION",
    "MISSING_INPUT",
    "UNSUPPORTED_CONVERSION",
    "hide_paths",
    "library_errors",
]

INVALID_INPUT_FILE = "INVALID_INPUT_FILE"
INVALID_OPTION = "INVALID_OPTION"
MISSING_INPUT = "MISSING_INPUT"
UNSUPPORTED_CONVERSION = "UNSUPPORTED_CONVERSION"
CONVERSION_FAILED = "CONVERSION_FAILED"
CANCELLED = "CANCELLED"

# What Pillow, pypdf, zipfile, tarfile, lzma and py7zr raise on bad data or a failed encode.
_LIBRARY_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    SyntaxError,
    EOFError,
    KeyError,
    IndexError,
    TypeError,
    ZeroDivisionError,
    struct.error,
    zlib.error,
    zipfile.BadZipFile,
    tarfile.TarError,
    lzma.LZMAError,
    PyPdfError,
    Image.DecompressionBombError,
)


# An absolute path of two or more parts (not the command sandbox's /input/ and /output/): the
# service's own directories, which mean nothing to a user and are not theirs to see.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/])(?!/(?:input|output)/)(?:/[^\s/:'\"|,;()\[\]]+){2,}")


def hide_paths(text: str) -> str:
    """``text`` with every absolute path cut to its file name."""
    return _ABSOLUTE_PATH.sub(lambda match: match.group(0).rsplit("/", 1)[1], text)


@contextmanager
def library_errors(action: str, code: str = CONVERSION_FAILED) -> Iterator[None]:
    """Turn a library exception raised inside the block into ``EngineError(code, ...)``.

    ``action`` completes the sentence "could not ...", e.g. ``"read photo.jpg as an image"``.
    """
    try:
        yield
    except EngineError:
        raise
    except Image.DecompressionBombError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"could not {action}: the image has too many pixels") from exc
    except _LIBRARY_ERRORS as exc:
        detail = hide_paths(str(exc).strip()) or type(exc).__name__
        raise EngineError(code, f"could not {action}: {detail}") from exc
