"""Checking an editor's buffer: exactly `mcv validate`'s check, fed the text instead of the file.

``check_text`` calls ``check_pipeline`` as `mcv validate` does (no params given, so examples stand in;
the configured catalog and operation schemas), with the buffer as the file's content. Text that does
not look like a pipeline (no top-level ``version:``/``tasks:``, no schema modeline) is left alone.
A failure inside the checker becomes a diagnostic, never an exception out of the server.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.errors import InvalidInput
from mcv_pipelines.lsp.settings import Tools
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.pipeline.discover import marks_pipeline
from mcv_pipelines.pipeline.document import Document, parse_document
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.redact import redact

__all__ = ["Checked", "check_text", "encode_text"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Checked:
    """What one check of a buffer found, and what completion and navigation can use from it."""

    diagnostics: tuple[Diagnostic, ...]
    pipeline: RenderedPipeline | None
    document: Document | None


def encode_text(text: str) -> bytes:
    """The buffer as the bytes `mcv validate` would read.

    A client that sent undecodable bytes as lone surrogates gets them back, so the checker reports the
    same ``yaml-encoding`` problem it reports for the file on disk.
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _document(raw: bytes, path: str) -> Document | None:
    try:
        return parse_document(raw, path)
    except InvalidInput:
        return None


def check_text(path: str, text: str, tools: Tools) -> Checked | None:
    """Diagnostics of the buffer ``text`` of the file ``path``; None when it is not a pipeline."""
    raw = encode_text(text)
    if not marks_pipeline(raw):
        return None
    try:
        result = check_pipeline(
            path,
            {},
            use_examples=True,
            schemas=tools.schemas,
            catalog=tools.catalog,
            content=raw,
            cases=True,
        )
    except Exception as exc:  # a checker bug must not take the editor's server down with it
        log.exception("checking %s failed", path)
        problem = Diagnostic(
            "internal-error",
            Severity.ERROR,
            f"mcv could not check this file: {redact(f'{type(exc).__name__}: {exc}')}",
            Location(path, 1, 1),
            hint="this is a bug in mcv; start `mcv lsp --log-file PATH` to keep the details",
        )
        return Checked((problem,), None, None)
    pipeline = result.pipeline
    document = pipeline.document if pipeline is not None else None
    if document is None and result.diagnostics and all(d.rule != "yaml-syntax" for d in result.diagnostics):
        document = _document(raw, path)  # rendering failed, but the outline is still worth knowing
    return Checked(result.diagnostics, pipeline, document)
