"""The ``pypdf`` engine: merge to PDF, optimise, metadata read/write and watermarks on PDFs.

Credits: 1 for every conversion type (merge included). Image inputs of merge become one page per
frame through Pillow (1 pixel = 1 point) before merging, in input order. Optimisation is lossless
(content streams compressed, identical objects merged, orphans dropped) for every profile; web, mrc
and max also re-encode JPEG images at quality 75, 75 and 50. The result is never larger than the
input.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import pypdf
from pypdf import PdfWriter

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import (
    CANCELLED,
    MISSING_INPUT,
    UNSUPPORTED_CONVERSION,
    library_errors,
)
from mcv_pipelines.service.engines.files import OutputNames
from mcv_pipelines.service.engines.image.formats import normalize_format, readable_formats
from mcv_pipelines.service.engines.image.watermark import WATERMARK_OPTIONS, WatermarkStyle, split_mark
from mcv_pipelines.service.engines.options import FILENAME, dict_option, enum_option, str_option
from mcv_pipelines.service.engines.pdf.metadata import read_pdf_metadata, write_pdf_metadata
from mcv_pipelines.service.engines.pdf.page_ranges import parse_pages
from mcv_pipelines.service.engines.pdf.pdf_io import PASSWORD, image_as_pdf, is_pdf, open_pdf
from mcv_pipelines.service.engines.pdf.watermark import image_overlay_page, text_overlay_page
from mcv_pipelines.service.engines.progress import Steps

__all__ = ["PypdfEngine"]

PROFILES = ("web", "print", "archive", "mrc", "max")
_PROFILE_IMAGE_QUALITY = {"web": 75, "mrc": 75, "max": 50}
PROFILE = OptionSpec("profile", "enum", "web", PROFILES, "web/mrc/max also re-encode JPEG images smaller.")
PAGES = OptionSpec("pages", "string", None, None, 'Pages to mark, e.g. "1-3,5"; all when not given.')
LAYER = OptionSpec("layer", "enum", "above", ("above", "below"), "Draw the watermark over or under the page.")
METADATA = OptionSpec(
    "metadata", "dictionary", None, None, "Title, Author, Subject, Keywords, Creator, Producer."
)


class PypdfEngine:
    """PDF work with pypdf; needs no external program."""

    name = "pypdf"

    def version(self) -> str | None:
        return pypdf.__version__

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(pypdf.__version__),)

        def entry(operation: str, source: str, target: str, *options: OptionSpec) -> ConversionType:
            return ConversionType(operation, source, target, "pypdf", 1, options, versions)

        types = [entry("merge", "pdf", "pdf", PASSWORD, FILENAME)]
        types += [entry("merge", source, "pdf", FILENAME) for source in readable_formats()]
        types.append(entry("optimize", "pdf", "pdf", PROFILE, PASSWORD, FILENAME))
        types.append(entry("metadata", "pdf", "json", PASSWORD))
        types.append(entry("metadata/write", "pdf", "pdf", METADATA, PASSWORD, FILENAME))
        types.append(entry("watermark", "pdf", "pdf", *WATERMARK_OPTIONS, PAGES, LAYER, PASSWORD, FILENAME))
        return types

    def run(self, request: EngineRequest) -> EngineResult:
        key = (
            request.operation,
            normalize_format(request.input_format),
            normalize_format(request.output_format),
        )
        if key not in {(t.operation, t.input_format, t.output_format) for t in self.conversion_types()}:
            raise EngineError(
                UNSUPPORTED_CONVERSION, "the pypdf engine cannot run {} from {} to {}".format(*key)
            )
        if not request.inputs:
            raise EngineError(
                MISSING_INPUT, f"{request.operation} needs an input file, and the task has none"
            )
        if request.operation == "merge":
            return self._merge(request)
        if request.operation == "metadata":
            reader = open_pdf(request.inputs[0].path, str_option(request.options, "password", None))
            with library_errors(f"read the metadata of {request.inputs[0].path.name!r}"):
                return EngineResult(extra={"metadata": read_pdf_metadata(reader)})
        return self._each_pdf(request)

    def _merge(self, request: EngineRequest) -> EngineResult:
        writer = PdfWriter()
        password = str_option(request.options, "password", None)  # tried on every encrypted input
        appended = Steps(len(request.inputs), request.progress, end=80)  # writing the whole is the rest
        for item in _checked(request, request.inputs):
            if is_pdf(item.path):
                reader = open_pdf(item.path, password)
            else:
                try:
                    reader = image_as_pdf(item.path)
                except EngineError as exc:
                    raise EngineError(
                        exc.code,
                        f"cannot merge {item.path.name!r}: it is neither a PDF nor an image ({exc.message})",
                    ) from exc
            with library_errors(f"add {item.path.name!r} to the merged PDF"):
                writer.append(reader)
            appended.advance()
        names = OutputNames(request.output_dir, str_option(request.options, "filename", None), 1)
        out = names.next(request.inputs[0].path.stem, "pdf")
        _write(writer, out)
        return EngineResult(files=[out])

    def _each_pdf(self, request: EngineRequest) -> EngineResult:
        options = request.options
        password = str_option(options, "password", None)
        inputs = list(request.inputs)
        mark_page = None
        style = None
        layer = enum_option(options, "layer", "above", ("above", "below"))
        if request.operation == "watermark":
            style = WatermarkStyle(options)
            inputs, mark_page = _split_watermark_image(inputs, style)
        names = OutputNames(request.output_dir, str_option(options, "filename", None), len(inputs))
        result = EngineResult()
        for number, item in enumerate(_checked(request, inputs)):
            reader = open_pdf(item.path, password)
            out = names.next(item.path.stem, "pdf")
            with library_errors(f"{request.operation} {item.path.name!r}"):
                writer = PdfWriter(clone_from=reader)
                # Each input's pages share its slice of 0-90 %; writing the files is the rest.
                share = 90 / max(1, len(inputs))
                start, end = number * share, (number + 1) * share
                pages = Steps(len(writer.pages), request.progress, start=start, end=end)
                if request.operation == "optimize":
                    _optimize(writer, enum_option(options, "profile", "web", PROFILES), pages)
                elif request.operation == "metadata/write":
                    write_pdf_metadata(writer, dict_option(options, "metadata"))
                elif style is not None:
                    _watermark(writer, style, mark_page, options.get("pages"), layer, pages)
            _write(writer, out)
            if request.operation == "optimize" and out.stat().st_size >= item.path.stat().st_size:
                shutil.copyfile(item.path, out)  # nothing gained: hand back the original bytes
            result.files.append(out)
        return result


def _checked(request: EngineRequest, inputs: Iterable[InputFile]) -> Iterator[InputFile]:
    for item in inputs:
        if request.cancelled.is_set():
            raise EngineError(CANCELLED, "the task was cancelled")
        yield item


def _split_watermark_image(
    inputs: list[InputFile], style: WatermarkStyle
) -> tuple[list[InputFile], pypdf.PageObject | None]:
    inputs, mark = split_mark(inputs, style, "PDF")
    return inputs, None if mark is None else image_as_pdf(mark.path).pages[0]


def _watermark(
    writer: PdfWriter,
    style: WatermarkStyle,
    mark_page: pypdf.PageObject | None,
    pages: object,
    layer: str,
    done: Steps,
) -> None:
    chosen = parse_pages(pages, len(writer.pages))
    done.total = max(1, len(chosen))
    for index in chosen:
        page = writer.pages[index]
        if page.rotation % 360:
            page.transfer_rotation_to_content()
        overlay = (
            text_overlay_page(page, style)
            if mark_page is None
            else image_overlay_page(page, mark_page, style)
        )
        page.merge_page(overlay, over=layer == "above")
        done.advance()


def _optimize(writer: PdfWriter, profile: str, done: Steps) -> None:
    quality = _PROFILE_IMAGE_QUALITY.get(profile)
    for page in writer.pages:
        if quality is not None:
            for image in page.images:
                if image.image is not None and image.image.mode in ("RGB", "L") and _is_jpeg(image.data):
                    image.replace(image.image, quality=quality)
        page.compress_content_streams(level=9)
        done.advance()
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)


def _is_jpeg(data: bytes) -> bool:
    return data[:2] == b"\xff\xd8"


def _write(writer: PdfWriter, out: Path) -> None:
    buffer = io.BytesIO()
    with library_errors(f"write {out.name!r}"):
        writer.write(buffer)
    out.write_bytes(buffer.getvalue())
