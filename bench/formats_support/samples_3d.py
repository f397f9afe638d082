"""3D seeds for bench/formats.py: a cube (OBJ, quads) and small meshes in the formats Assimp reads
but does not write. Every other 3D input (stl, ply, glb, gltf, dae, fbx ...) is made by
converting the cube through the service."""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["MODEL_SEEDS", "write_model_seeds"]

_CORNERS = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))
_QUADS = ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))


def _xyz(corner: tuple[int, int, int]) -> str:
    return " ".join(map(str, corner))


_OBJ = (
    "# a unit cube\no Cube\n"
    + "".join(f"v {_xyz(c)}\n" for c in _CORNERS)
    + "".join("f " + " ".join(str(i + 1) for i in quad) + "\n" for quad in _QUADS)
)
_OFF = (
    f"OFF\n{len(_CORNERS)} {len(_QUADS)} 0\n"
    + "".join(f"{_xyz(c)}\n" for c in _CORNERS)
    + "".join("4 " + " ".join(map(str, quad)) + "\n" for quad in _QUADS)
)
# AC3D: one square with a material
_AC = """AC3Db
MATERIAL "blue" rgb 0.1 0.3 0.8  amb 0.2 0.2 0.2  emis 0 0 0  spec 0.5 0.5 0.5  shi 10  trans 0
OBJECT world
kids 1
OBJECT poly
name "square"
numvert 4
0 0 0
1 0 0
1 1 0
0 1 0
numsurf 1
SURF 0x10
mat 0
refs 4
0 0 0
1 1 0
2 1 1
3 0 1
kids 0
"""
_AMF_TRIANGLES = ((0, 1, 2), (0, 1, 3), (1, 2, 3), (0, 2, 3))
# AMF: a tetrahedron
_AMF = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<amf unit="millimeter"><object id="0"><mesh><vertices>\n'
    + "".join(
        f"<vertex><coordinates><x>{x}</x><y>{y}</y><z>{z}</z></coordinates></vertex>\n"
        for x, y, z in ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1))
    )
    + "</vertices><volume>\n"
    + "".join(f"<triangle><v1>{a}</v1><v2>{b}</v2><v3>{c}</v3></triangle>\n" for a, b, c in _AMF_TRIANGLES)
    + "</volume></mesh></object></amf>\n"
)
# Neutral File Format: a viewpoint, a fill colour and one square polygon
_NFF = """v
from 0 0 5
at 0 0 0
up 0 1 0
angle 45
hither 1
resolution 64 64
f 0.2 0.4 0.8 1 0 0 0 0
p 4
0 0 0
1 0 0
1 1 0
0 1 0
"""
# Valve SMD: one bone, one triangle
_SMD = """version 1
nodes
0 "root" -1
end
skeleton
time 0
0 0 0 0 0 0 0
end
triangles
default
0 0 0 0 0 0 1 0 0
0 1 0 0 0 0 1 1 0
0 1 1 0 0 0 1 1 1
end
"""
# AutoCAD DXF: one 3DFACE (group code, value lines)
_DXF = "".join(
    f"{line}\n"
    for line in (
        0, "SECTION", 2, "ENTITIES", 0, "3DFACE", 8, 0,
        10, 0.0, 20, 0.0, 30, 0.0, 11, 1.0, 21, 0.0, 31, 0.0,
        12, 1.0, 22, 1.0, 32, 0.0, 13, 0.0, 23, 1.0, 33, 0.0,
        0, "ENDSEC", 0, "EOF",
    )
)  # fmt: skip


def _ms3d() -> bytes:
    """MilkShape 3D (version 4, binary): a square of two triangles in one group, no material."""
    corners, triangles = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)), ((0, 1, 2), (0, 2, 3))
    data = b"MS3D000000" + struct.pack("<iH", 4, len(corners))
    data += b"".join(struct.pack("<B3fbB", 0, *corner, -1, 1) for corner in corners)
    data += struct.pack("<H", len(triangles))
    normals, s, t = (0, 0, 1) * 3, (0, 1, 1), (0, 0, 1)
    data += b"".join(struct.pack("<4H9f3f3fBB", 0, *tri, *normals, *s, *t, 1, 0) for tri in triangles)
    data += struct.pack("<HB32sH2Hb", 1, 0, b"square", 2, 0, 1, -1)  # the group of both triangles
    return data + struct.pack("<HffiH", 0, 24.0, 0.0, 1, 0)  # no materials, animation, joints


MODEL_SEEDS: dict[str, str | bytes] = {
    "obj": _OBJ, "off": _OFF, "ac": _AC, "amf": _AMF, "nff": _NFF, "smd": _SMD, "dxf": _DXF, "ms3d": _ms3d(),
}  # fmt: skip


def write_model_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the 3D seeds of ``wanted``; format -> path."""
    seeds: dict[str, Path] = {}
    for fmt, text in MODEL_SEEDS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(text if isinstance(text, bytes) else text.encode("ascii"))
    return seeds
