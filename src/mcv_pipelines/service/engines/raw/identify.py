"""What LibRaw's ``raw-identify -v`` says of a raw file, read before anything is developed: the size
of the picture it would make, so a header that claims gigapixels is refused without a pixel decoded."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["RawHeader", "parse_identify"]

_OUTPUT_SIZE = re.compile(r"^Output size:\s*(\d+)\s*x\s*(\d+)", re.MULTILINE)
_CAMERA = re.compile(r"^Camera:\s*(.+?)(?:\s+ID:.*)?$", re.MULTILINE)
_FLIP = re.compile(r"^Image flip:\s*(\d+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RawHeader:
    """``width`` x ``height``: the developed picture, already turned as the camera says (``flip``)."""

    width: int
    height: int
    camera: str
    flip: int


def parse_identify(output: str) -> RawHeader | None:
    """The header ``raw-identify -v`` printed; None when it found no raw picture it can develop."""
    size = _OUTPUT_SIZE.search(output)
    if size is None:
        return None
    camera = _CAMERA.search(output)
    flip = _FLIP.search(output)
    return RawHeader(
        width=int(size[1]),
        height=int(size[2]),
        camera=camera[1].strip() if camera else "",
        flip=int(flip[1]) if flip else 0,
    )
