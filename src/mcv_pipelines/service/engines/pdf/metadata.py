"""PDF metadata: the document information dictionary and page facts, read and written with pypdf."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pypdf import PdfReader, PdfWriter
from pypdf.generic import TextStringObject

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_OPTION

__all__ = ["WRITABLE_KEYS", "read_pdf_metadata", "write_pdf_metadata"]

WRITABLE_KEYS = ("Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate")


def read_pdf_metadata(reader: PdfReader) -> dict[str, Any]:
    """Document information entries (without their leading ``/``) plus page count, version and size."""
    first = reader.pages[0]
    result: dict[str, Any] = {
        "FileType": "PDF",
        "PDFVersion": reader.pdf_header.removeprefix("%PDF-"),
        "PageCount": len(reader.pages),
        "Encrypted": reader.is_encrypted,
        "PageWidth": float(first.mediabox.width),
        "PageHeight": float(first.mediabox.height),
    }
    for key, value in (reader.metadata or {}).items():
        name = str(key).removeprefix("/")
        plain = value.get_object() if hasattr(value, "get_object") else value
        result[name] = plain if isinstance(plain, str | int | float | bool) else str(plain)
    return result


def write_pdf_metadata(writer: PdfWriter, metadata: Mapping[str, Any]) -> None:
    """Set (or, with a null value, remove) document information entries; unknown keys are refused."""
    canonical = {key.lower(): key for key in WRITABLE_KEYS}
    unknown = [key for key in metadata if key.removeprefix("/").lower() not in canonical]
    if unknown:
        raise EngineError(
            INVALID_OPTION,
            f"metadata key(s) {', '.join(map(repr, unknown))} cannot be written to PDF; "
            f"writable keys: {', '.join(WRITABLE_KEYS)}",
        )
    if not metadata:
        raise EngineError(INVALID_OPTION, "option 'metadata' is empty; give at least one key to write")
    updates: dict[str, Any] = {}
    removals: list[str] = []
    for key, value in metadata.items():
        name = "/" + canonical[key.removeprefix("/").lower()]
        if value is None:
            removals.append(name)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            updates[name] = TextStringObject(str(value))
        else:
            raise EngineError(INVALID_OPTION, f"metadata key {key!r} must be a string, got {value!r}")
    merged: dict[str, Any] = {str(key): value for key, value in (writer.metadata or {}).items()}
    merged.update(updates)
    for name in removals:
        merged.pop(name, None)
    writer.metadata = merged  # the setter replaces the whole /Info, which is how entries are removed
