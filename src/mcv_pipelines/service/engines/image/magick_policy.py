"""How ImageMagick and GraphicsMagick are restricted inside ``command`` tasks.

ImageMagick reads ``policy.xml`` from ``MAGICK_CONFIGURE_PATH`` in addition to the system one, and a
denial in any policy file stands: ours blocks the coders that fetch URLs or read other files (URL,
HTTP(S), FTP, MVG, MSL, TEXT, EPHEMERAL ...), every delegate program, ``@file`` indirection, and
bounds memory and disk. GraphicsMagick has no policy file, so for it the same coders are refused in
arguments and input files that are drawing scripts (MVG, MSL, SVG) are refused before it runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import quoteattr

from mcv_pipelines.service.engines.base import EngineError

__all__ = ["BLOCKED_CODERS", "MAGICK_BLOCKED_PREFIXES", "refuse_drawing_scripts", "write_policy"]

BLOCKED_CODERS = (
    "URL",
    "HTTP",
    "HTTPS",
    "FTP",
    "MVG",
    "MSL",
    "TEXT",
    "EPHEMERAL",
    "SHOW",
    "WIN",
    "X",
    "PLT",
    "VID",
)
MAGICK_BLOCKED_PREFIXES = (*tuple(f"{coder.lower()}:" for coder in BLOCKED_CODERS), "label:@", "caption:@")

_SCRIPT_MARKERS = (b"push graphic-context", b"viewbox", b"<svg", b"<image", b"<msl", b"<!doctype svg")


def write_policy(directory: Path, task_root: Path) -> Path:
    """Write the restrictive policy.xml into ``directory`` and return it (for MAGICK_CONFIGURE_PATH)."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<policymap>"]
    lines += [
        f'  <policy domain="resource" name="temporary-path" value={quoteattr(str(task_root / "tmp"))}/>',
        '  <policy domain="resource" name="memory" value="1GiB"/>',
        '  <policy domain="resource" name="map" value="2GiB"/>',
        '  <policy domain="resource" name="disk" value="4GiB"/>',
        '  <policy domain="delegate" rights="none" pattern="*"/>',
        '  <policy domain="path" rights="none" pattern="@*"/>',
    ]
    lines += [f'  <policy domain="coder" rights="none" pattern="{coder}"/>' for coder in BLOCKED_CODERS]
    lines.append("</policymap>")
    (directory / "policy.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory


def refuse_drawing_scripts(paths: Iterable[Path]) -> None:
    """Refuse input files that are drawing scripts: they can name other files GraphicsMagick would read."""
    for path in paths:
        with path.open("rb") as handle:
            head = handle.read(4096).lower()
        if any(marker in head for marker in _SCRIPT_MARKERS):
            raise EngineError(
                "COMMAND_NOT_ALLOWED",
                f"input {path.name} is a drawing script (MVG, MSL, SVG); graphicsmagick may not read it here",
            )
