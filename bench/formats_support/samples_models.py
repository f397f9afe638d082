"""Hand-written tetrahedra (4 corners, 4 triangles) in the game and modelling formats Assimp reads but
does not write: id Software's MD5 mesh (text), Quake MDL and Quake 3 MD3, OpenGEX, Caligari trueSpace ASCII,
LightWave LWO2, Blitz3D, Inter-Quake Model and MikuMikuDance PMX. Each is laid out as its format's
documentation describes, with struct for the binary ones; Assimp reads each into one mesh of four
faces."""

from __future__ import annotations

import struct

__all__ = ["MORE_MODEL_SEEDS", "lwo", "md5mesh", "ogex", "pmx"]

_CORNERS = ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))
_TRIANGLES = ((0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2))  # facing outwards


def md5mesh(shader: str = "tetra") -> str:
    """id Tech 4 mesh: one joint at the origin, each vertex bound to one weight at its corner."""
    return (
        'MD5Version 10\ncommandline ""\n\nnumJoints 1\nnumMeshes 1\n\n'
        'joints {\n\t"root" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n\nmesh {\n'
        f'\tshader "{shader}"\n'
        f"\tnumverts {len(_CORNERS)}\n"
        + "".join(f"\tvert {i} ( {x} {y} ) {i} 1\n" for i, (x, y, _z) in enumerate(_CORNERS))
        + f"\tnumtris {len(_TRIANGLES)}\n"
        + "".join(f"\ttri {i} {a} {b} {c}\n" for i, (a, b, c) in enumerate(_TRIANGLES))
        + f"\tnumweights {len(_CORNERS)}\n"
        + "".join(f"\tweight {i} 0 1.0 ( {x} {y} {z} )\n" for i, (x, y, z) in enumerate(_CORNERS))
        + "}\n"
    )


def ogex(texture: str | None = None) -> str:
    """OpenGEX: a geometry object and a node that places it (with a material naming ``texture``)."""
    material = ""
    if texture is not None:
        material = (
            '\tMaterialRef {ref {$material1}}\n}\n\nMaterial $material1\n{\n\tName {string {"blue"}}\n'
            f'\tTexture (attrib = "diffuse") {{string {{"{texture}"}}}}\n'
        )
    return (
        'GeometryNode $node1\n{\n\tName {string {"tetra"}}\n\tObjectRef {ref {$geometry1}}\n'
        + material
        + "}\n\n"
        'GeometryObject $geometry1\n{\n\tMesh (primitive = "triangles")\n\t{\n'
        '\t\tVertexArray (attrib = "position")\n\t\t{\n\t\t\tfloat[3]\n\t\t\t{\n\t\t\t\t'
        + ", ".join("{" + ", ".join(f"{v:.1f}" for v in corner) + "}" for corner in _CORNERS)
        + "\n\t\t\t}\n\t\t}\n\t\tIndexArray\n\t\t{\n\t\t\tunsigned_int32[3]\n\t\t\t{\n\t\t\t\t"
        + ", ".join("{" + ", ".join(map(str, triangle)) + "}" for triangle in _TRIANGLES)
        + "\n\t\t\t}\n\t\t}\n\t}\n}\n"
    )


# trueSpace ASCII: a polyhedron chunk (header padded to 32 characters), its material, the end chunk
_COB = (
    f"{'Caligari V00.01ALH':<32}\n"
    "PolH V0.08 Id 1 Parent 0 Size 00000300\nName tetra\ncenter 0 0 0\n"
    "x axis 1 0 0\ny axis 0 1 0\nz axis 0 0 1\nTransform\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
    f"World Vertices {len(_CORNERS)}\n"
    + "".join(" ".join(f"{v:.6f}" for v in corner) + "\n" for corner in _CORNERS)
    + "Texture Vertices 1\n0.000000 0.000000\n"
    + f"Faces {len(_TRIANGLES)}\n"
    + "".join("Face verts 3 flags 0 mat 0\n" + " ".join(f"<{i},0>" for i in t) + "\n" for t in _TRIANGLES)
    + "Mat1 V0.06 Id 2 Parent 1 Size 00000100\nmat# 0\nshader: phong facet: auto32\n"
    "rgb 0.1,0.3,0.8\nalpha 1 ka 0.1 ks 0.5 exp 0 ior 1\n"
    "END V1.00 Id 0 Parent 0 Size        0\n"
)


def _iff_chunk(tag: bytes, body: bytes) -> bytes:
    return tag + struct.pack(">I", len(body)) + body + b"\0" * (len(body) % 2)


def _lwo_name(name: str) -> bytes:
    """An LWO string: zero-terminated, padded to an even length."""
    data = name.encode() + b"\0"
    return data + b"\0" * (len(data) % 2)


def lwo(clip: str | None = None) -> bytes:
    """LightWave 6 object (big-endian IFF): a layer, its points, triangles tagged with one surface
    (and an image clip of file ``clip``)."""
    surface = _lwo_name("Default") + _lwo_name("")
    surface += b"COLR" + struct.pack(">H3fH", 14, 0.1, 0.3, 0.8, 0) + b"DIFF" + struct.pack(">HfH", 6, 1.0, 0)
    body = b"LWO2" + _iff_chunk(b"TAGS", _lwo_name("Default"))
    body += _iff_chunk(b"LAYR", struct.pack(">HH3f", 0, 0, 0, 0, 0) + _lwo_name("tetra"))
    body += _iff_chunk(b"PNTS", b"".join(struct.pack(">3f", *corner) for corner in _CORNERS))
    body += _iff_chunk(b"POLS", b"FACE" + b"".join(struct.pack(">4H", 3, *t) for t in _TRIANGLES))
    body += _iff_chunk(b"PTAG", b"SURF" + b"".join(struct.pack(">HH", i, 0) for i in range(len(_TRIANGLES))))
    body += _iff_chunk(b"SURF", surface)
    if clip is not None:
        still = _lwo_name(clip)
        body += _iff_chunk(b"CLIP", struct.pack(">I", 1) + b"STIL" + struct.pack(">H", len(still)) + still)
    return _iff_chunk(b"FORM", body)


def _b3d_chunk(tag: bytes, body: bytes) -> bytes:
    return tag + struct.pack("<i", len(body)) + body


def _b3d() -> bytes:
    """Blitz3D: a node (name, position, scale, rotation quaternion) holding a mesh of vertices and
    triangles, no brush (-1)."""
    points = b"".join(struct.pack("<3f", *corner) for corner in _CORNERS)
    vertices = _b3d_chunk(b"VRTS", struct.pack("<3i", 0, 0, 0) + points)  # no normals, colours, UVs
    indices = b"".join(struct.pack("<3i", *triangle) for triangle in _TRIANGLES)
    triangles = _b3d_chunk(b"TRIS", struct.pack("<i", -1) + indices)
    mesh = _b3d_chunk(b"MESH", struct.pack("<i", -1) + vertices + triangles)
    node = _b3d_chunk(b"NODE", b"tetra\0" + struct.pack("<3f3f4f", 0, 0, 0, 1, 1, 1, 1, 0, 0, 0) + mesh)
    return _b3d_chunk(b"BB3D", struct.pack("<i", 1) + node)


def _md3() -> bytes:
    """Quake 3 MD3 (version 15): one frame, one surface of one shader; coordinates in 1/64 units."""
    triangles = b"".join(struct.pack("<3i", *t) for t in _TRIANGLES)
    shader = struct.pack("<64si", b"tetra", 0)
    texture = b"".join(struct.pack("<2f", x, y) for x, y, _z in _CORNERS)
    points = b"".join(struct.pack("<3hH", *(64 * v for v in corner), 0) for corner in _CORNERS)
    at_shader = 108 + len(triangles)
    at_texture = at_shader + len(shader)
    at_points = at_texture + len(texture)
    surface = struct.pack(
        "<4s64s10i", b"IDP3", b"tetra", 0, 1, 1, len(_CORNERS), len(_TRIANGLES),
        108, at_shader, at_texture, at_points, at_points + len(points),
    ) + triangles + shader + texture + points  # fmt: skip
    frame = struct.pack("<3f3f3ff16s", 0, 0, 0, 1, 1, 1, 0, 0, 0, 1.8, b"frame0")
    at_surface = 108 + len(frame)
    header = struct.pack(
        "<4si64s9i", b"IDP3", 15, b"tetra.md3", 0, 1, 0, 1, 0, 108, at_surface, at_surface,
        at_surface + len(surface),
    )  # fmt: skip
    return header + frame + surface


def _iqm() -> bytes:
    """Inter-Quake Model (version 2): a header of 27 counts and offsets, the names, one mesh, a
    position array of floats and the triangles; no joints or animations."""
    names = b"\0tetra\0skin\0\0"  # offset 0 is the empty name
    at_names = 124
    at_mesh = at_names + len(names)
    mesh = struct.pack("<6I", 1, 7, 0, len(_CORNERS), 0, len(_TRIANGLES))  # name, material, ranges
    at_arrays = at_mesh + len(mesh)
    at_points = at_arrays + 20
    points = b"".join(struct.pack("<3f", *corner) for corner in _CORNERS)
    arrays = struct.pack("<5I", 0, 0, 7, 3, at_points)  # positions, as 3 floats
    at_triangles = at_points + len(points)
    triangles = b"".join(struct.pack("<3I", *triangle) for triangle in _TRIANGLES)
    counts = (len(names), at_names, 1, at_mesh, 1, len(_CORNERS), at_arrays, len(_TRIANGLES), at_triangles)
    size = at_triangles + len(triangles)
    header = b"INTERQUAKEMODEL\0" + struct.pack("<27I", 2, size, 0, *counts, *(0,) * 15)
    return header + names + mesh + arrays + points + triangles


def _mdl() -> bytes:
    """Quake MDL (version 6): byte coordinates scaled by the header, one blank 8x8 skin of palette
    indices, a texture coordinate per vertex, the triangles, one frame."""
    corners = tuple(tuple(255 * v for v in corner) for corner in _CORNERS)
    scale, origin, eye = (1 / 255,) * 3, (0.0,) * 3, (0.0,) * 3
    counts = (1, 8, 8, len(corners), len(_TRIANGLES), 1, 0, 0)  # skins, skin size, vertices, ...
    header = b"IDPO" + struct.pack("<i3f3ff3f8if", 6, *scale, *origin, 1.8, *eye, *counts, 1.0)
    skin = struct.pack("<i", 0) + bytes(8 * 8)
    coordinates = struct.pack("<3i", 0, 0, 0) * len(corners)
    triangles = b"".join(struct.pack("<4i", 1, *triangle) for triangle in _TRIANGLES)
    frame = struct.pack("<i4B4B16s", 0, 0, 0, 0, 0, 255, 255, 255, 0, b"frame0")
    frame += b"".join(bytes((*corner, 0)) for corner in corners)
    return header + skin + coordinates + triangles + frame


def _pmx_text(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<i", len(data)) + data


def pmx(texture: str | None = None) -> bytes:
    """MikuMikuDance PMX 2.0 (UTF-8 text, one-byte indices): the vertices bound to one bone, the
    triangles, one material (with ``texture``), the bone; no morphs, frames, bodies or joints."""
    data = b"PMX " + struct.pack("<fB", 2.0, 8) + bytes((1, 0, 1, 1, 1, 1, 1, 1))
    data += _pmx_text("tetra") * 2 + _pmx_text("") * 2  # names and comments, local and universal
    data += struct.pack("<i", len(_CORNERS))
    for x, y, z in _CORNERS:  # position, normal, uv, BDEF1 on bone 0, edge scale
        data += struct.pack("<3f3f2fBbf", x, y, z, 0, 0, 1, x, y, 0, 0, 1.0)
    data += struct.pack("<i", 3 * len(_TRIANGLES)) + b"".join(struct.pack("<3B", *t) for t in _TRIANGLES)
    textures = [] if texture is None else [texture]
    data += struct.pack("<i", len(textures)) + b"".join(_pmx_text(name) for name in textures)
    data += struct.pack("<i", 1) + _pmx_text("blue") * 2
    data += struct.pack("<4f3ff3fB4ff", 0.1, 0.3, 0.8, 1, 0, 0, 0, 0, 0.1, 0.1, 0.1, 0, 0, 0, 0, 1, 1)
    data += struct.pack("<bbBBb", 0 if textures else -1, -1, 0, 0, -1)  # texture, sphere, toon
    data += _pmx_text("") + struct.pack("<i", 3 * len(_TRIANGLES))
    data += struct.pack("<i", 1) + _pmx_text("root") * 2 + struct.pack("<3fbiH3f", 0, 0, 0, -1, 0, 0, 0, 1, 0)
    return data + struct.pack("<4i", 0, 0, 0, 0)


MORE_MODEL_SEEDS: dict[str, str | bytes] = {
    "md5mesh": md5mesh(), "ogex": ogex(), "cob": _COB, "lwo": lwo(), "b3d": _b3d(), "md3": _md3(),
    "iqm": _iqm(), "pmx": pmx(), "mdl": _mdl(),
}  # fmt: skip
