"""What the page engines share: the ``pages`` and ``pixel_density`` options, the numbering of one file
per page as pdftoppm does it (one page: ``name.png``; several: ``name-1.png``, ``name-2.png`` ... in
page order), and PNG pages rewritten as JPEG where the program writes no JPEG itself."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from PIL import Image

from mcv_pipelines.service.engines.base import EngineError, EngineRequest, OptionSpec
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, library_errors
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME

__all__ = ["PAGES", "PAGE_OPTIONS", "PIXEL_DENSITY", "move_pages", "page_number", "to_jpeg"]

PAGES = OptionSpec("pages", "string", None, None, "Pages to convert, such as '1-3,5'; all when unset")
PIXEL_DENSITY = OptionSpec(
    "pixel_density",
    "integer",
    None,
    None,
    "Resolution of page images in dots per inch; the page's own when unset",
)
PAGE_OPTIONS = (FILENAME, PAGES, PIXEL_DENSITY)
_NUMBER = re.compile(r"(\d+)$")


def page_number(path: Path) -> int:
    """The page number at the end of a rendered file's stem (``page-12.png`` -> 12)."""
    match = _NUMBER.search(path.stem)
    return int(match.group(1)) if match else 0


def to_jpeg(png: Path, quality: int = 90) -> Path:
    """``png`` rewritten beside itself as a JPEG (white under any transparency); the new path."""
    target = png.with_suffix(".jpg")
    with library_errors(f"write {png.name} as JPEG"), Image.open(png) as image:
        rgb = image.convert("RGBA")
        flat = Image.new("RGB", rgb.size, "white")
        flat.paste(rgb, mask=rgb.getchannel("A"))
        flat.save(target, "JPEG", quality=quality)
    png.unlink()
    return target


def move_pages(request: EngineRequest, rendered: list[Path], extension: str, expected: int) -> list[Path]:
    """Rendered page files (in page order) moved into the output directory under the task's names."""
    if len(rendered) != expected:
        raise EngineError(CONVERSION_FAILED, f"{len(rendered)} of {expected} pages were rendered")
    if len(rendered) == 1:
        targets = [output_path(request, extension)]
    else:
        targets = [output_path(request, extension, index) for index in range(1, len(rendered) + 1)]
    for page_file, target in zip(rendered, targets, strict=True):
        shutil.move(page_file, target)
    return targets
