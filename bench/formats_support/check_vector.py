"""Checks of the vector family's outputs (issue 47), each by a reader that is not the engine's: an SVGZ
is gunzipped and parsed with ElementTree (an <svg> root drawing something); a DXF is read with ezdxf and
must hold drawing entities with a non-empty extent; a GeoJSON must be a FeatureCollection of closed
polygon rings (RFC 7946); a plt is walked as HPGL (pen-down moves with numeric coordinates); a .fig must
have XFig's header and objects, and, where fig2dev is installed, come out of it as an SVG that draws;
an EMF is walked record by record from its header to EMR_EOF with drawing records between; a PIC
drawing goes through groff's own pic, which must turn it into troff drawing commands.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

__all__ = ["VECTOR_CHECKS", "hpgl_pen_moves", "vector_checks"]

Check = Callable[[Path], None]
_SVG = "{http://www.w3.org/2000/svg}"
_SHAPES = {"path", "polyline", "polygon", "rect", "circle", "ellipse", "line", "text", "use", "image"}


def _drawn_svg(data: bytes) -> None:
    root = ElementTree.fromstring(data)  # noqa: S314 - the bench's own output
    if root.tag not in ("svg", f"{_SVG}svg"):
        raise ValueError(f"the root element is {root.tag}, not svg")
    shapes = [node for node in root.iter() if node.tag.removeprefix(_SVG) in _SHAPES]
    if not shapes:
        raise ValueError("the SVG draws nothing")


def _svgz(path: Path) -> None:
    data = path.read_bytes()
    if data[:2] != b"\x1f\x8b":
        raise ValueError("not gzip-compressed")
    _drawn_svg(gzip.decompress(data))


def _dxf(path: Path) -> None:
    import ezdxf
    from ezdxf import bbox

    document = ezdxf.readfile(str(path))
    entities = list(document.modelspace())
    if not entities:
        raise ValueError("the DXF's model space is empty")
    extent = bbox.extents(entities)
    if not extent.has_data or extent.size.x <= 0 or extent.size.y <= 0:
        raise ValueError(f"the DXF's {len(entities)} entities have no extent")


def _geojson(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("type") != "FeatureCollection" or not data.get("features"):
        raise ValueError("not a FeatureCollection with features")
    for feature in data["features"]:
        geometry = feature["geometry"]
        polygons = {"Polygon": [geometry["coordinates"]], "MultiPolygon": geometry["coordinates"]}
        for polygon in polygons.get(geometry["type"], []):
            for ring in polygon:
                if len(ring) < 4 or ring[0] != ring[-1] or any(len(point) != 2 for point in ring):
                    raise ValueError("a polygon ring is not closed or too short")


_COMMAND = re.compile(r"([A-Z]{2})([^A-Z;]*)")


def hpgl_pen_moves(text: str) -> int:
    """The number of pen-down line segments an HPGL program draws (absolute and relative moves)."""
    pen_down, moves = False, 0
    for name, arguments in _COMMAND.findall(text.replace("\n", ";")):
        numbers = [float(word) for word in re.split(r"[,\s]+", arguments.strip()) if word]
        if len(numbers) % 2 and name in ("PU", "PD", "PA", "PR"):
            raise ValueError(f"{name} with an odd number of coordinates")
        if name in ("PU", "PD"):
            pen_down = name == "PD"
        if name in ("PD", "PA", "PR") and pen_down:
            moves += len(numbers) // 2
    return moves


def _plt(path: Path) -> None:
    text = path.read_text(encoding="ascii")
    if not text.startswith("IN"):
        raise ValueError("an HPGL program starts with IN (initialize)")
    if hpgl_pen_moves(text) < 4:
        raise ValueError("the pen draws almost nothing")


def _fig(path: Path) -> None:
    lines = path.read_text(encoding="latin-1").splitlines()
    if not lines or not lines[0].startswith("#FIG 3."):
        raise ValueError("no '#FIG 3.x' header")
    body = [line.split() for line in lines[1:] if line.strip() and not line.startswith("#")]
    objects = [words for words in body[8:] if words[0] in {"1", "2", "3", "4", "5", "6"} and len(words) > 8]
    if not objects:
        raise ValueError("the drawing has no objects")
    if shutil.which("fig2dev"):
        with tempfile.TemporaryDirectory() as tmp:
            svg = Path(tmp) / "out.svg"
            subprocess.run(
                ["fig2dev", "-L", "svg", str(path), str(svg)], check=True, capture_output=True, timeout=60
            )
            _drawn_svg(svg.read_bytes())


def _pic(path: Path) -> None:
    text = path.read_text(encoding="latin-1")
    if ".PS" not in text or ".PE" not in text:
        raise ValueError("no .PS ... .PE picture")
    troff = subprocess.run(["pic", str(path)], check=True, capture_output=True, text=True, timeout=60)
    if "\\D'" not in troff.stdout:
        raise ValueError("pic made no drawing commands of it")


_EMR_EOF, _EMR_HEADER = 14, 1
_DRAWING = set(range(2, 9)) | {
    27,
    40,
    41,
    42,
    43,
    54,
    55,
    56,
    57,
    58,
    59,
    60,
    61,
    62,
    85,
    86,
    87,
    88,
    89,
    90,
    91,
}


def _emf(path: Path) -> None:
    data = path.read_bytes()
    kinds: list[int] = []
    offset = 0
    while offset + 8 <= len(data):
        kind, size = struct.unpack_from("<II", data, offset)
        if size < 8 or size % 4 or offset + size > len(data):
            raise ValueError(f"a record of {size} bytes at {offset}")
        kinds.append(kind)
        offset += size
    if not kinds or kinds[0] != _EMR_HEADER or data[40:44] != b" EMF" or kinds[-1] != _EMR_EOF:
        raise ValueError("not EMR_HEADER ... EMR_EOF")
    if not _DRAWING.intersection(kinds):
        raise ValueError("no drawing records")


VECTOR_CHECKS: dict[str, Check] = {
    "svgz": _svgz, "dxf": _dxf, "geojson": _geojson, "plt": _plt, "fig": _fig, "emf": _emf, "pic": _pic,
}  # fmt: skip


def vector_checks(fmt: str) -> list[Check]:
    """The checks of this family for an output of format ``fmt`` (none for other outputs)."""
    return [VECTOR_CHECKS[fmt]] if fmt in VECTOR_CHECKS else []
