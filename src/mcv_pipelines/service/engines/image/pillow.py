"""The ``pillow`` engine: image conversion, thumbnails, optimisation, watermarks and EXIF metadata.

Multi-frame inputs (animated GIF/WebP, multi-page TIFF) keep every frame when the output can hold
several (gif, webp, tiff, pdf) and give their first frame otherwise. A thumbnail with neither width
nor height fits inside 256x256.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from functools import cache

import PIL

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
)
from mcv_pipelines.service.engines.failures import (
    CANCELLED,
    MISSING_INPUT,
    UNSUPPORTED_CONVERSION,
)
from mcv_pipelines.service.engines.files import OutputNames
from mcv_pipelines.service.engines.image.formats import ImageFormat, image_format, normalize_format
from mcv_pipelines.service.engines.image.image_io import SourceImage, load_image, save_image, save_pdf
from mcv_pipelines.service.engines.image.jpeg_exif import replace_jpeg_exif
from mcv_pipelines.service.engines.image.metadata import read_image_metadata, update_exif
from mcv_pipelines.service.engines.image.pillow_listing import OPTIMIZE_PROFILES, pillow_conversion_types
from mcv_pipelines.service.engines.image.resize import Resize, resize
from mcv_pipelines.service.engines.image.watermark import (
    WatermarkStyle,
    apply_overlay,
    image_overlay,
    split_mark,
    text_overlay,
)
from mcv_pipelines.service.engines.options import (
    bool_option,
    color_option,
    dict_option,
    enum_option,
    int_option,
    str_option,
)

__all__ = ["PillowEngine"]

_PROFILE_QUALITY = {"web": 80, "mrc": 80, "print": 92, "archive": 95, "max": 70}
_PROFILE_STRIP = {"web": True, "mrc": True, "print": False, "archive": False, "max": True}


def _exif_bytes(source: SourceImage, strip: bool) -> bytes | None:
    return None if strip or not source.exif else source.exif.tobytes()


class PillowEngine:
    """Images with Pillow; needs no external program."""

    name = "pillow"

    def version(self) -> str | None:
        return PIL.__version__

    def conversion_types(self) -> Iterable[ConversionType]:
        return pillow_conversion_types(PIL.__version__)

    def run(self, request: EngineRequest) -> EngineResult:
        operation = request.operation
        source = normalize_format(request.input_format)
        target = normalize_format(request.output_format)
        if (operation, source, target) not in _known(PIL.__version__):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"the pillow engine cannot run {operation} from {source} to {target}"
            )
        handlers: dict[str, Callable[[EngineRequest, str], EngineResult]] = {
            "convert": self._convert,
            "thumbnail": self._convert,
            "optimize": self._optimize,
            "watermark": self._watermark,
            "metadata": self._metadata,
            "metadata/write": self._metadata_write,
        }
        if not request.inputs:
            raise EngineError(MISSING_INPUT, f"{operation} needs an input file, and the task has none")
        return handlers[operation](request, target)

    @staticmethod
    def _each(request: EngineRequest, inputs: list[InputFile] | None = None) -> Iterable[InputFile]:
        for item in inputs if inputs is not None else request.inputs:
            if request.cancelled.is_set():
                raise EngineError(CANCELLED, "the task was cancelled")
            yield item

    def _convert(self, request: EngineRequest, target: str) -> EngineResult:
        options = request.options
        thumbnail = request.operation == "thumbnail"
        wanted = Resize(options)
        if thumbnail and wanted.width is None and wanted.height is None:
            wanted.width = wanted.height = 256
        quality = int_option(options, "quality", None, minimum=1, maximum=100)
        strip = bool_option(options, "strip", thumbnail)
        auto_orient = bool_option(options, "auto_orient", True)
        background = color_option(options, "background", "#ffffff")
        fmt = image_format(target)
        many = target == "pdf" or (fmt is not None and fmt.frames and not thumbnail)
        names = OutputNames(request.output_dir, str_option(options, "filename", None), len(request.inputs))
        result = EngineResult()
        for item in self._each(request):
            side = max(wanted.width or 0, wanted.height or 0) or None
            source = load_image(item.path, all_frames=many, auto_orient=auto_orient, at_least=side)
            frames = [resize(frame, wanted) for frame in source.frames]
            out = names.next(item.path.stem, target)
            if fmt is None:  # pdf
                save_pdf(frames, out, background)
            else:
                save_image(
                    frames,
                    out,
                    fmt,
                    quality=quality,
                    exif=_exif_bytes(source, strip),
                    icc_profile=None if strip else source.icc_profile,
                    background=background,
                    durations=source.durations,
                    loop=source.loop,
                )
            result.files.append(out)
        return result

    def _optimize(self, request: EngineRequest, target: str) -> EngineResult:
        options = request.options
        profile = enum_option(options, "profile", "web", OPTIMIZE_PROFILES)
        quality = int_option(options, "quality", _PROFILE_QUALITY[profile], minimum=1, maximum=100)
        strip = bool_option(options, "strip", _PROFILE_STRIP[profile])
        fmt = _format(target)
        names = OutputNames(request.output_dir, str_option(options, "filename", None), len(request.inputs))
        result = EngineResult()
        for item in self._each(request):
            source = load_image(item.path, all_frames=False, auto_orient=False)
            out = names.next(item.path.stem, target)
            save_image(
                source.frames,
                out,
                fmt,
                quality=quality,
                exif=_exif_bytes(source, strip),
                icc_profile=None if strip else source.icc_profile,
                optimize=True,
                progressive=True,
            )
            if out.stat().st_size >= item.path.stat().st_size:
                shutil.copyfile(item.path, out)  # never hand back a bigger file than we were given
            result.files.append(out)
        return result

    def _watermark(self, request: EngineRequest, target: str) -> EngineResult:
        options = request.options
        style = WatermarkStyle(options)
        inputs, mark_file = split_mark(request.inputs, style, "file")
        mark = None
        if mark_file is not None:
            mark = load_image(mark_file.path, all_frames=False, auto_orient=True).frames[0]
        quality = int_option(options, "quality", None, minimum=1, maximum=100)
        background = color_option(options, "background", "#ffffff")
        fmt = _format(target)
        names = OutputNames(request.output_dir, str_option(options, "filename", None), len(inputs))
        result = EngineResult()
        for item in self._each(request, inputs):
            source = load_image(item.path, all_frames=fmt.frames, auto_orient=True)
            size = source.frames[0].size
            overlay = image_overlay(mark, size, style) if mark is not None else text_overlay(style)
            frames = [apply_overlay(frame, overlay, style.placement) for frame in source.frames]
            out = names.next(item.path.stem, target)
            save_image(
                frames,
                out,
                fmt,
                quality=quality,
                exif=_exif_bytes(source, False),
                icc_profile=source.icc_profile,
                background=background,
                durations=source.durations,
                loop=source.loop,
            )
            result.files.append(out)
        return result

    def _metadata(self, request: EngineRequest, target: str) -> EngineResult:
        return EngineResult(extra={"metadata": read_image_metadata(request.inputs[0].path)})

    def _metadata_write(self, request: EngineRequest, target: str) -> EngineResult:
        metadata = dict_option(request.options, "metadata")
        fmt = _format(target)
        names = OutputNames(
            request.output_dir, str_option(request.options, "filename", None), len(request.inputs)
        )
        result = EngineResult()
        for item in self._each(request):
            source = load_image(item.path, all_frames=fmt.frames, auto_orient=False)
            update_exif(source.exif, metadata)
            out = names.next(item.path.stem, target)
            if source.format in ("JPEG", "MPO") and fmt.name == "jpg":
                out.write_bytes(replace_jpeg_exif(item.path.read_bytes(), source.exif.tobytes()))
                result.files.append(out)
                continue
            save_image(
                source.frames,
                out,
                fmt,
                quality=95,
                exif=source.exif.tobytes(),
                icc_profile=source.icc_profile,
                durations=source.durations,
                loop=source.loop,
                lossless=True,
            )
            result.files.append(out)
        return result


def _format(name: str) -> ImageFormat:
    fmt = image_format(name)
    if fmt is None:  # the listing check in run() makes this unreachable for real requests
        raise EngineError(UNSUPPORTED_CONVERSION, f"{name} is not an image format")
    return fmt


@cache
def _known(version: str) -> frozenset[tuple[str, str, str]]:
    """(operation, input, output) of every conversion Pillow ``version`` runs."""
    return frozenset((t.operation, t.input_format, t.output_format) for t in pillow_conversion_types(version))
