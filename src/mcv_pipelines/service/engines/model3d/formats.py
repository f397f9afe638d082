"""The formats Assimp 5.2 (Debian bookworm's assimp-utils) converts, each proven by bench/formats.py.

Inputs are those Assimp reads that a sample can be made of here: what it writes and reads back, and
small text formats written by hand (bench/formats_support/samples_3d.py). Outputs map our format name
to Assimp's exporter id (``assimp listexport``); every one writes a single file (see __init__).
"""

from __future__ import annotations

__all__ = ["EXPORTERS", "READERS", "TRIANGLES_ONLY"]

EXPORTERS: dict[str, str] = {
    "obj": "objnomtl",  # geometry only: no .mtl beside it
    "stl": "stlb",  # binary STL
    "ply": "plyb",  # binary little-endian PLY
    "glb": "glb2",
    "gltf": "gltf2",  # its .bin embedded afterwards (gltf_embed.py)
    "dae": "collada",
    "fbx": "fbxa",  # ASCII FBX 7.5: Assimp cannot read back the binary FBX it writes
    "3ds": "3ds",
    "x": "x",
    "3mf": "3mf",
    "x3d": "x3d",
    "stp": "stp",  # STEP AP214
    "pbrt": "pbrt",  # a pbrt-v4 scene description
    "assbin": "assbin",
    "assxml": "assxml",
}

READERS: tuple[str, ...] = (
    # written here and read back
    "obj", "stl", "ply", "glb", "gltf", "dae", "fbx", "3ds", "x", "3mf", "x3d", "assbin",
    # read only: Object File Format, AC3D, Additive Manufacturing, Neutral File Format, Valve SMD
    "off", "ac", "amf", "nff", "smd",
)  # fmt: skip

# Formats that hold triangles only: Assimp's 3MF exporter keeps a polygon's first three corners, so
# polygons are split into triangles before these (the ``triangulate`` option does it for the rest).
TRIANGLES_ONLY = frozenset({"stl", "3mf", "glb", "gltf", "3ds", "x3d"})
