"""Proof of a 3D model output: its signature or structure, and, for every format Assimp reads, that
Assimp reads it back with at least one mesh and one face (``assimp info``)."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

__all__ = ["MODEL_CHECKS"]


def _starts(magic: bytes) -> Callable[[bytes], None]:
    def check(data: bytes) -> None:
        if not data.startswith(magic):
            raise ValueError(f"no {magic!r} signature")

    return check


def _holds(*marks: bytes) -> Callable[[bytes], None]:
    def check(data: bytes) -> None:
        for mark in marks:
            if mark not in data:
                raise ValueError(f"no {mark!r} in it")

    return check


def _stl(data: bytes) -> None:
    if data.startswith(b"solid") and b"facet" in data:
        return
    count = struct.unpack_from("<I", data, 80)[0] if len(data) >= 84 else 0
    if count == 0 or len(data) != 84 + 50 * count:
        raise ValueError("neither ASCII STL nor binary STL of the right size")


def _obj(data: bytes) -> None:
    text = data.decode("ascii", "replace")
    if not re.search(r"^v\s", text, re.M) or not re.search(r"^f\s", text, re.M):
        raise ValueError("no v and f lines")


def _glb(data: bytes) -> None:
    if data[:4] != b"glTF" or struct.unpack_from("<I", data, 4)[0] != 2:
        raise ValueError("no glTF 2 binary header")


def _gltf(data: bytes) -> None:
    document = json.loads(data)
    if document["asset"]["version"] != "2.0":
        raise ValueError("not glTF 2.0")
    # one file: every buffer inside it (an image may stay a reference to a texture the input named)
    uris = [item.get("uri", "") for item in document.get("buffers", [])]
    if not uris or not all(uri.startswith("data:") for uri in uris):
        raise ValueError(f"buffers not embedded: {[u[:40] for u in uris]}")


def _x3d(data: bytes) -> None:
    # Parsed here rather than read back: Assimp's X3D reader fails on a texture url the exporter
    # writes as the standard says ('"name"'), so it cannot be the decoder.
    root = ElementTree.fromstring(data)  # noqa: S314 - what our own service wrote from our sample
    faces = root.find(".//IndexedFaceSet")
    if root.tag != "X3D" or faces is None or not faces.get("coordIndex") or faces.find("Coordinate") is None:
        raise ValueError("no IndexedFaceSet with coordinates in an X3D scene")


def _3mf(data: bytes) -> None:
    with tempfile.TemporaryFile() as file:
        file.write(data)
        with zipfile.ZipFile(file) as archive:
            if b"<triangle " not in archive.read("3D/3DModel.model"):
                raise ValueError("no triangle in 3D/3DModel.model")


_SHAPES: dict[str, Callable[[bytes], None]] = {
    "obj": _obj, "stl": _stl, "ply": _starts(b"ply\n"), "glb": _glb, "gltf": _gltf,
    "dae": _holds(b"<COLLADA"), "fbx": _starts(b"; FBX"), "3ds": _starts(b"MM"), "x": _starts(b"xof "),
    "3mf": _3mf, "x3d": _x3d, "stp": _starts(b"ISO-10303-21;"),
    "pbrt": _holds(b"WorldBegin", b"Shape"), "assbin": _starts(b"ASSIMP.binary-dump."),
    "assxml": _holds(b"<ASSIMP"),
}  # fmt: skip
_READ_BACK = {"obj", "stl", "ply", "glb", "gltf", "dae", "fbx", "3ds", "x", "3mf", "assbin"}


def _read_back(path: Path, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / f"model.{fmt}"
        shutil.copyfile(path, copy)
        done = subprocess.run(
            ["assimp", "info", copy.name], cwd=tmp, capture_output=True, text=True, timeout=120
        )
    counts = dict(re.findall(r"^(Meshes|Faces):\s+(\d+)", done.stdout, re.M))
    if done.returncode != 0 or int(counts.get("Meshes", 0)) < 1 or int(counts.get("Faces", 0)) < 1:
        raise ValueError(f"assimp does not read it back: {done.stdout.strip().splitlines()[-1:]}")


def _model(fmt: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        _SHAPES[fmt](path.read_bytes())
        if fmt in _READ_BACK:
            _read_back(path, fmt)

    return check


MODEL_CHECKS: dict[str, Callable[[Path], None]] = {fmt: _model(fmt) for fmt in _SHAPES}
