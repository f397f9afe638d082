"""convert eml, msg, mbox and emlx to html, txt, md and pdf, and msg and emlx to eml; with their
attachments as further files of the task.

Everything runs in this process on the task's bytes: the standard library's ``email`` reads eml (and
the eml inside mbox and emlx), olefile reads msg (msg_reader.py); nothing a mail names is ever opened
or fetched. PDF is the html page printed by the web engine's html -> pdf, which the registry hands in
(``print_with``, as Pandoc's), so the process keeps one warm browser; the page fetches nothing, and the
printer's request guard refuses whatever it might still ask for. The first file of the result is the
converted mail, the attachments follow (option ``attachments``, default true).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from importlib.util import find_spec
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.lookup import forget_listing
from mcv_pipelines.service.engines.mail.eml_reader import emlx_message, read_eml, read_emlx, read_mbox
from mcv_pipelines.service.engines.mail.eml_writer import eml_bytes
from mcv_pipelines.service.engines.mail.message import Mail
from mcv_pipelines.service.engines.mail.outputs import write_attachments
from mcv_pipelines.service.engines.mail.render import html_page, markdown, plain_text
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, bool_option
from mcv_pipelines.service.engines.text.pandoc_pdf import PdfPrinter, printed_options

__all__ = ["MAX_MAIL_BYTES", "MailEngine"]

MAX_MAIL_BYTES = 200 * 1024 * 1024
_WRITERS: dict[str, Callable[[list[Mail]], str]] = {"html": html_page, "txt": plain_text, "md": markdown}
_ATTACHMENTS = OptionSpec(
    "attachments", "boolean", True, None, "Write the mail's attachments as further files of the task"
)
_OPTIONS = (FILENAME, _ATTACHMENTS)


def _inputs() -> tuple[str, ...]:
    return ("eml", "mbox", "emlx", "msg") if find_spec("olefile") is not None else ("eml", "mbox", "emlx")


class MailEngine:
    """Mail with the standard library and olefile; needs no external program (PDF: the web engine's)."""

    name = "mail"

    def __init__(self) -> None:
        self.printer: PdfPrinter | None = None

    def print_with(self, engine: Engine) -> None:
        """Write PDF through ``engine``'s html -> pdf (the web engine the registry already made)."""
        self.printer = PdfPrinter(engine)
        forget_listing(self)

    def version(self) -> str | None:
        return f"{sys.version_info.major}.{sys.version_info.minor}"

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(self.version() or ""),)
        pairs = [
            ConversionType("convert", source, target, self.name, options=_OPTIONS, engine_versions=versions)
            for source in _inputs()
            for target in (*_WRITERS, *(("eml",) if source in ("msg", "emlx") else ()))
        ]
        printing = None if self.printer is None else self.printer.conversion()
        if printing is not None and self.printer is not None:
            options, meta = printed_options(_OPTIONS, printing), self.printer.meta()
            pairs += [
                ConversionType("convert", source, "pdf", self.name, options=options, engine_versions=versions,
                               meta=meta)
                for source in _inputs()
            ]  # fmt: skip
        return pairs

    def run(self, request: EngineRequest) -> EngineResult:
        started = time.monotonic()
        source, target = request.input_format, request.output_format
        printing = target == "pdf" and self.printer is not None
        writes_eml = target == "eml" and source in ("msg", "emlx")
        if (
            request.operation != "convert"
            or source not in _inputs()
            or not (target in _WRITERS or printing or writes_eml)
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"mail does not {request.operation} {source} to {target}"
            )
        path = single_input(request)
        if path.stat().st_size > MAX_MAIL_BYTES:
            raise EngineError(
                INVALID_INPUT_FILE, f"{path.name} is larger than {MAX_MAIL_BYTES // 1024**2} MB"
            )
        data = path.read_bytes()
        with library_errors(f"read {path.name} as {source}", INVALID_INPUT_FILE):
            mails = self._read(source, data, path.name)
        request.progress(20)
        if writes_eml:  # emlx: the message inside it as it was; msg: written anew
            out = output_path(request, "eml")
            with library_errors(f"write {out.name}"):
                out.write_bytes(emlx_message(data, path.name) if source == "emlx" else eml_bytes(mails[0]))
            return self._with_attachments(request, mails, out)
        if printing and self.printer is not None:
            page_dir = request.work_dir / "page"
            page_dir.mkdir(parents=True, exist_ok=True)
            page = page_dir / f"{path.stem or 'mail'}.html"
            page.write_text(html_page(mails), encoding="utf-8")
            result = self.printer.print_page(request, InputFile(request.inputs[0].task_name, page), started)
            return self._with_attachments(request, mails, *result.files)
        out = output_path(request, target)
        out.write_text(_WRITERS[target](mails), encoding="utf-8")
        return self._with_attachments(request, mails, out)

    @staticmethod
    def _read(source: str, data: bytes, name: str) -> list[Mail]:
        if source == "msg":
            from mcv_pipelines.service.engines.mail.msg_reader import read_msg

            return [read_msg(data, name)]
        if source == "mbox":
            return read_mbox(data, name)
        return [read_emlx(data, name) if source == "emlx" else read_eml(data, name)]

    @staticmethod
    def _with_attachments(request: EngineRequest, mails: list[Mail], *made: Path) -> EngineResult:
        """The converted mail first, then (unless the task says ``attachments: false``) its attachments."""
        files = list(made)
        if bool_option(request.options, "attachments", True):
            with library_errors("write the attachments"):
                files += write_attachments(mails, request.output_dir)
        return EngineResult(files=files)
