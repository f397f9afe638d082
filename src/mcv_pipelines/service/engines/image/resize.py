"""Resizing with the ``width``, ``height`` and ``fit`` options.

``fit`` semantics (when both width and height are given):

- ``max``: fit inside width x height keeping the aspect ratio, never enlarging (the default).
- ``upscale``: fit inside width x height keeping the aspect ratio, enlarging when smaller.
- ``crop``: fill width x height exactly keeping the aspect ratio, cropping the overflow around the centre.
- ``scale``: exactly width x height, distorting the aspect ratio if needed.

With only one of width and height, the other follows from the aspect ratio (``max`` still never
enlarges). With neither, the image keeps its size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageOps

from mcv_pipelines.service.engines.base import EngineError, OptionSpec
from mcv_pipelines.service.engines.failures import INVALID_OPTION
from mcv_pipelines.service.engines.options import enum_option, int_option

__all__ = ["FIT_MODES", "RESIZE_OPTIONS", "Resize", "resize"]

FIT_MODES = ("max", "crop", "scale", "upscale")
_LIMIT = 20000  # pixels per side: well above any real output, well below memory trouble

RESIZE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("width", "integer", None, None, "Output width in pixels."),
    OptionSpec("height", "integer", None, None, "Output height in pixels."),
    OptionSpec(
        "fit",
        "enum",
        "max",
        FIT_MODES,
        "max: fit inside, never enlarge; upscale: fit inside, may enlarge; crop: fill and crop; "
        "scale: exact size.",
    ),
)


class Resize:
    """The resize options of one task, read and checked once."""

    def __init__(self, options: Mapping[str, Any], default_fit: str = "max") -> None:
        self.width = int_option(options, "width", None, minimum=1, maximum=_LIMIT)
        self.height = int_option(options, "height", None, minimum=1, maximum=_LIMIT)
        self.fit = enum_option(options, "fit", default_fit, FIT_MODES)


def resize(image: Image.Image, wanted: Resize) -> Image.Image:
    """``image`` resized as ``wanted`` says (the same object when nothing changes)."""
    width, height, fit = wanted.width, wanted.height, wanted.fit
    if width is None and height is None:
        return image
    if image.mode in ("P", "1"):
        # palette images would be resampled nearest-neighbour; go through full colour instead
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if width is not None and height is not None:
        if fit == "crop":
            return ImageOps.fit(image, (width, height), Image.Resampling.LANCZOS)
        if fit == "scale":
            return image.resize((width, height), Image.Resampling.LANCZOS)
    w, h = image.size
    ratio = min(width / w if width else math.inf, height / h if height else math.inf)
    if fit == "max":
        ratio = min(ratio, 1.0)
    size = (max(1, round(w * ratio)), max(1, round(h * ratio)))
    if max(size) > _LIMIT:
        raise EngineError(
            INVALID_OPTION,
            f"the resized image would be {size[0]}x{size[1]} pixels; "
            f"at most {_LIMIT} pixels per side are allowed",
        )
    if size == image.size:
        return image
    return image.resize(size, Image.Resampling.LANCZOS)
