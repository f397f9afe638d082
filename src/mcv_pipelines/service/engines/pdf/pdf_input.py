"""Checks on a PDF input before a program sees it, and page selections (``pages``, ``page_range``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import PdfReadError

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.naming import single_input
from mcv_pipelines.service.engines.pdf.pdf_io import is_pdf

__all__ = ["check_pdf", "page_count", "selected_pages", "single_pdf"]

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$")


def single_pdf(request: EngineRequest) -> Path:
    """The one input of a PDF program, refused before the program sees it when it is not a PDF."""
    source = single_input(request)
    check_pdf(source)
    return source


def check_pdf(path: Path) -> None:
    """Refuse a file that is not a PDF: Ghostscript would otherwise run it as PostScript."""
    if not is_pdf(path):
        raise EngineError("INVALID_INPUT", f"{path.name} is not a PDF file (no %PDF header)")


def page_count(path: Path) -> int:
    """The number of pages, or EngineError for a damaged or encrypted PDF."""
    check_pdf(path)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise EngineError("INVALID_INPUT", f"{path.name} is encrypted")
        return len(reader.pages)
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise EngineError("INVALID_INPUT", f"{path.name} is a damaged PDF: {exc}") from None


def selected_pages(options: Mapping[str, Any], count: int) -> list[int]:
    """Pages chosen by ``pages`` or ``page_range`` (``"1-3,5"``, ``"2-"``, ``4``); all pages when unset."""
    spec = options.get("pages")
    name = "pages"
    if spec is None or spec == "":
        spec, name = options.get("page_range"), "page_range"
    if spec is None or spec == "":
        return list(range(1, count + 1))
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = str(spec)
    if not isinstance(spec, str):
        raise EngineError("INVALID_OPTION", f"{name} must be a string such as '1-3,5', got {spec!r}")
    pages: set[int] = set()
    for part in spec.split(","):
        match = _RANGE.match(part)
        if not match:
            raise EngineError("INVALID_OPTION", f"{name} {spec!r} is not a page list such as '1-3,5'")
        first = int(match.group(1))
        last = first if match.group(2) is None else int(match.group(2) or count)
        if first < 1 or last < first or first > count:
            raise EngineError("INVALID_OPTION", f"{name} {spec!r} is outside the document's {count} pages")
        pages.update(range(first, min(last, count) + 1))
    return sorted(pages)
