"""3D seeds for bench/formats.py: a cube (OBJ, quads) and small meshes in the formats Assimp reads
but does not write. Every other 3D input (stl, ply, glb, gltf, dae, fbx ...) is made by
converting the cube through the service."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

from formats_support.samples_models import MORE_MODEL_SEEDS

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


# 3ds Max ASCII Scene Export: a square of two faces with a material
_ASE = """*3DSMAX_ASCIIEXPORT    200
*SCENE {
    *SCENE_FILENAME "square.max"
    *SCENE_FIRSTFRAME 0
    *SCENE_LASTFRAME 100
    *SCENE_FRAMESPEED 30
    *SCENE_TICKSPERFRAME 160
}
*MATERIAL_LIST {
    *MATERIAL_COUNT 1
    *MATERIAL 0 {
        *MATERIAL_NAME "blue"
        *MATERIAL_CLASS "Standard"
        *MATERIAL_AMBIENT 0.1 0.1 0.1
        *MATERIAL_DIFFUSE 0.1 0.3 0.8
        *MATERIAL_SPECULAR 0.9 0.9 0.9
    }
}
*GEOMOBJECT {
    *NODE_NAME "square"
    *NODE_TM {
        *NODE_NAME "square"
        *TM_ROW0 1 0 0
        *TM_ROW1 0 1 0
        *TM_ROW2 0 0 1
        *TM_ROW3 0 0 0
    }
    *MESH {
        *TIMEVALUE 0
        *MESH_NUMVERTEX 4
        *MESH_NUMFACES 2
        *MESH_VERTEX_LIST {
            *MESH_VERTEX 0 0 0 0
            *MESH_VERTEX 1 1 0 0
            *MESH_VERTEX 2 1 1 0
            *MESH_VERTEX 3 0 1 0
        }
        *MESH_FACE_LIST {
            *MESH_FACE 0: A: 0 B: 1 C: 2 AB: 1 BC: 1 CA: 0 *MESH_SMOOTHING 1 *MESH_MTLID 0
            *MESH_FACE 1: A: 0 B: 2 C: 3 AB: 0 BC: 1 CA: 1 *MESH_SMOOTHING 1 *MESH_MTLID 0
        }
    }
    *MATERIAL_REF 0
}
"""
# XGL: one triangle with its material; ZGL is the same zlib-compressed
_XGL = """<WORLD>
<MESH ID="0">
<MAT ID="0"><AMB>0.2 0.2 0.2</AMB><DIFF>0.1 0.3 0.8</DIFF><SPEC>0 0 0</SPEC><EMISS>0 0 0</EMISS>
<SHINE>0</SHINE><ALPHA>1</ALPHA></MAT>
<P ID="0">0 0 0</P><P ID="1">1 0 0</P><P ID="2">1 1 0</P>
<N ID="0">0 0 1</N>
<F><MATREF>0</MATREF><FV1><PREF>0</PREF><NREF>0</NREF></FV1><FV2><PREF>1</PREF><NREF>0</NREF></FV2><FV3><PREF>2</PREF><NREF>0</NREF></FV3></F>
</MESH>
<OBJECT><MESHREF>0</MESHREF></OBJECT>
</WORLD>
"""
# COLLADA (a square) zipped with its manifest: a .zae
_DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><up_axis>Z_UP</up_axis></asset>
<library_geometries><geometry id="square" name="square"><mesh>
<source id="square-positions">
<float_array id="square-positions-array" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
<technique_common><accessor source="#square-positions-array" count="4" stride="3">
<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
</accessor></technique_common></source>
<vertices id="square-vertices"><input semantic="POSITION" source="#square-positions"/></vertices>
<triangles count="2"><input semantic="VERTEX" source="#square-vertices" offset="0"/>
<p>0 1 2 0 2 3</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="scene"><node id="node" name="square">
<instance_geometry url="#square"/></node></visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


def _zae() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.xml", '<?xml version="1.0"?>\n<dae_root>./square.dae</dae_root>\n')
        archive.writestr("square.dae", _DAE)
    return buffer.getvalue()


def _md2() -> bytes:
    """Quake II MD2: one frame of one triangle (byte coordinates scaled by the frame), one skin size."""
    corners, coords = ((0, 0, 0), (255, 0, 0), (255, 255, 0)), ((0, 0), (8, 0), (8, 8))
    frame_size = 40 + 4 * len(corners)
    st, tris = 68, 68 + 4 * len(coords)
    frames = tris + 12
    gl_commands = frames + frame_size
    header = struct.pack(
        "<4s16i", b"IDP2", 8, 8, 8, frame_size, 0, len(corners), len(coords), 1, 1, 1,
        st, st, tris, frames, gl_commands, gl_commands + 4,
    )  # fmt: skip
    data = header + b"".join(struct.pack("<2h", *c) for c in coords) + struct.pack("<6H", 0, 1, 2, 0, 1, 2)
    data += struct.pack("<3f3f16s", 1 / 255, 1 / 255, 1, 0, 0, 0, b"frame0")
    return data + b"".join(struct.pack("<4B", *c, 0) for c in corners) + struct.pack("<i", 0)


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
    "ase": _ASE, "xgl": _XGL, "zgl": zlib.compress(_XGL.encode()), "zae": _zae(), "md2": _md2(),
    **MORE_MODEL_SEEDS,  # game and modelling formats (samples_models.py)
}  # fmt: skip


def write_model_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the 3D seeds of ``wanted``; format -> path."""
    seeds: dict[str, Path] = {}
    for fmt, text in MODEL_SEEDS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(text if isinstance(text, bytes) else text.encode("ascii"))
    return seeds
