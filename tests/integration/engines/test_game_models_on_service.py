"""Game and modelling formats Assimp reads (issue 47): a hand-written tetrahedron in each of MD5 mesh,
MD3, Quake MDL, OpenGEX, trueSpace, LightWave, Blitz3D, Inter-Quake Model and PMX converts on the real
service to glb and OBJ with its four triangles and four corners."""

from __future__ import annotations

import base64
import json
import re
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import download_all, run_job

from mcv_pipelines.service.engines.base import Engine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from formats_support.samples_models import MORE_MODEL_SEEDS  # the bench's samples

RequireEngine = Callable[..., Engine]

# glTF accessor component types by their size in bytes, for reading the index buffer
_INDEX_SIZES = {5121: 1, 5123: 2, 5125: 4}


def _glb_triangles(data: bytes) -> tuple[int, int]:
    """(triangles, corners) of every mesh of a glb: its index and position accessors' counts."""
    assert data[:4] == b"glTF"
    assert struct.unpack_from("<I", data, 4)[0] == 2
    length, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    document: dict[str, Any] = json.loads(data[20 : 20 + length])
    accessors = document["accessors"]
    primitives = [p for mesh in document["meshes"] for p in mesh["primitives"]]
    assert all(p.get("mode", 4) == 4 for p in primitives)  # triangles
    triangles = sum(accessors[p["indices"]]["count"] for p in primitives) // 3
    return triangles, sum(accessors[p["attributes"]["POSITION"]]["count"] for p in primitives)


def _obj_triangles(text: str) -> tuple[int, set[tuple[float, ...]]]:
    """(faces, distinct corners) of an OBJ; every face a triangle."""
    faces = re.findall(r"^f\s+(.*)$", text, re.M)
    assert all(len(face.split()) == 3 for face in faces)
    corners = {tuple(round(float(v), 4) for v in m.split()) for m in re.findall(r"^v\s+(.*)$", text, re.M)}
    return len(faces), corners


def test_each_game_format_converts_to_glb_and_obj_with_its_triangles(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "md5mesh", "glb")
    tasks: dict[str, Any] = {}
    for fmt, sample in MORE_MODEL_SEEDS.items():
        data = sample if isinstance(sample, bytes) else sample.encode()
        import_task = {"operation": "import/base64", "file": base64.b64encode(data).decode()}
        tasks[fmt] = {**import_task, "filename": f"tetra-{fmt}.{fmt}"}
        tasks[f"{fmt}-glb"] = {
            "operation": "convert",
            "input": fmt,
            "output_format": "glb",
            "engine": "assimp",
        }
        obj = {"operation": "convert", "input": fmt, "output_format": "obj", "engine": "assimp"}
        tasks[f"{fmt}-obj"] = {**obj, "triangulate": True}
    names = [name for name in tasks if "-" in name]
    job = run_job(client, {**tasks, "export": {"operation": "export/url", "input": names}})
    files = download_all(job, tmp_path / "out")
    for fmt in MORE_MODEL_SEEDS:
        triangles, corners = _glb_triangles(files[f"tetra-{fmt}.glb"].read_bytes())
        assert triangles == 4, fmt
        assert corners >= 4, fmt
        faces, points = _obj_triangles(files[f"tetra-{fmt}.obj"].read_text())
        assert faces == 4, fmt
        assert len(points) == 4, (fmt, points)  # the tetrahedron's corners, in whatever axes and scale
