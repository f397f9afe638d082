"""What FontForge is given to open: only a file that starts as its format does, and never one holding
pickled Python.

FontForge chooses its reader by the file's content, not its name, and its sfd reader unpickles the
``PickledData`` a font or glyph carries (the Python objects of ``font.persistent``): loading such a
file runs any code the pickle names, under ``-lang=py`` and FontForge's own script language alike. So
the input must start with its own format's signature (an sfd sent as pfb is refused, not read as sfd),
and no input whose bytes name ``PickledData`` in any case is opened at all.
"""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["check_fontforge_input"]

_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "pfa": (b"%!PS-AdobeFont", b"%!FontType1"),
    "pfb": (b"\x80\x01",),
    "sfd": (b"SplineFontDB:",),
    "t42": (b"%!PS-TrueTypeFont",),
    "cff": (b"\x01\x00",),  # CFF version 1.0
    "bdf": (b"STARTFONT",),
    "pcf": (b"\x01fcp",),
    "ttf": (b"\x00\x01\x00\x00", b"true"),
    "otf": (b"OTTO",),
    "woff": (b"wOFF",),
    "woff2": (b"wOF2",),
}


def check_fontforge_input(path: Path, fmt: str, shown: str) -> None:
    """Raise INVALID_INPUT_FILE unless ``path`` starts as a ``fmt`` file and carries no pickle."""
    data = path.read_bytes()
    if not data.startswith(_SIGNATURES[fmt]):
        raise EngineError(INVALID_INPUT_FILE, f"{shown} is not a {fmt} font (its first bytes are not)")
    if b"pickleddata" in data.lower():
        raise EngineError(
            INVALID_INPUT_FILE,
            f"{shown} carries pickled Python data (PickledData), which FontForge would run as code: not read",
        )
