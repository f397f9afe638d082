"""The formats Assimp 5.2 (Debian bookworm's assimp-utils) converts, each proven by bench/formats.py.

Inputs are those Assimp reads that a sample can be made of here: what it writes and reads back, and
formats written by hand (bench/formats_support/samples_3d.py and samples_models.py). Outputs map our
format name to Assimp's exporter id (``assimp listexport``); every one writes a single file (see
__init__). Not read here although listed by ``assimp listext``: irrmesh and ter (Assimp 5.2 fails on
well-formed files), stp/step (IFC schemas only), irr and 3d (scenes of other files), bvh/csm/mot
(motion without a mesh).
"""

from __future__ import annotations

__all__ = ["EXPORTERS", "READERS", "THROUGH_OBJ", "TRIANGLES_ONLY"]

EXPORTERS: dict[str, str] = {
    "obj": "objnomtl",  # geometry only: no .mtl beside it
    "stl": "stlb",  # binary STL
    "ply": "ply",  # ASCII: Assimp's binary PLY declares vertex colours as bytes but writes floats
    "glb": "glb2",
    "gltf": "gltf2",  # its .bin embedded afterwards (gltf_embed.py)
    "dae": "collada",
    "fbx": "fbxa",  # ASCII FBX 7.5: Assimp cannot read back the binary FBX it writes
    "3ds": "3ds",
    "x": "x",
    "3mf": "3mf",  # through OBJ (THROUGH_OBJ)
    "x3d": "x3d",
    "stp": "stp",  # STEP AP214
    "pbrt": "pbrt",  # a pbrt-v4 scene description
    "assbin": "assbin",
    "assxml": "assxml",
}

READERS: tuple[str, ...] = (
    # written here and read back
    "obj", "stl", "ply", "glb", "gltf", "dae", "fbx", "3ds", "x", "3mf", "x3d", "assbin",
    # read only: Object File Format, AC3D, Additive Manufacturing, Neutral File Format, Valve SMD,
    # AutoCAD DXF (its 3D faces), MilkShape 3D, 3ds Max ASCII, XGL and its zlib form ZGL, zipped
    # COLLADA, Quake II
    "off", "ac", "amf", "nff", "smd", "dxf", "ms3d", "ase", "xgl", "zgl", "zae", "md2",
    # read only, game and modelling formats: Doom 3 MD5 mesh, Quake 3, OpenGEX, Caligari trueSpace
    # ASCII, LightWave 6, Blitz3D, Inter-Quake Model, MikuMikuDance PMX, Quake (and Half-Life) MDL;
    # none names a file Assimp opens: textures stay names
    "md5mesh", "md3", "ogex", "cob", "lwo", "b3d", "iqm", "pmx", "mdl",
)  # fmt: skip

# Formats that hold triangles only (Assimp's 3MF exporter kept a polygon's first three corners), so
# polygons are split into triangles before these (the ``triangulate`` option does it for the rest).
TRIANGLES_ONLY = frozenset({"stl", "3mf", "glb", "gltf", "3ds"})

# Assimp's 3MF exporter writes only the meshes of the root node's children: a scene read from 3DS,
# OFF, PLY, X ... (meshes on the root or deeper) became an empty 3MF. Written first as OBJ (geometry
# only, which is all the 3MF exporter keeps besides a colour) and read back, every mesh is such a child.
THROUGH_OBJ = frozenset({"3mf"})
