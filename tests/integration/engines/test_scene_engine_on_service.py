"""3D models with Assimp through the service: text and binary formats both ways, the triangulate
option, and hostile models that name files outside their task or a loopback address."""

from __future__ import annotations

import base64
import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from hostile_origin import listening_origin

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

CUBE = (
    "o Cube\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
)


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _glb_json(data: bytes) -> dict[str, Any]:
    assert data[:4] == b"glTF"
    assert struct.unpack_from("<I", data, 4)[0] == 2
    length, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    document: dict[str, Any] = json.loads(data[20 : 20 + length])
    return document


def _ply_faces(data: bytes) -> int:
    header = data[: data.index(b"end_header")].decode("ascii")
    return int(next(line.split()[2] for line in header.splitlines() if line.startswith("element face")))


def _cube(tmp_path: Path) -> Path:
    path = tmp_path / "cube.obj"
    path.write_text(CUBE)
    return path


def test_a_cube_converts_to_mesh_and_scene_formats(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "obj", "glb")
    job = run_job(
        client,
        {
            "cube": b64_import(_cube(tmp_path)),
            "stl": _convert("cube", "stl"),
            "glb": _convert("cube", "glb"),
            "gltf": _convert("cube", "gltf"),
            "mf": _convert("cube", "3mf"),
            "dae": _convert("cube", "dae"),
            "export": {"operation": "export/url", "input": ["stl", "glb", "gltf", "mf", "dae"]},
        },
    )
    assert task_named(job, "glb")["engine"] == "assimp"
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["cube.3mf", "cube.dae", "cube.glb", "cube.gltf", "cube.stl"]
    stl = files["cube.stl"].read_bytes()
    assert struct.unpack_from("<I", stl, 80)[0] == 12  # six quads as twelve triangles
    assert len(stl) == 84 + 50 * 12
    glb = _glb_json(files["cube.glb"].read_bytes())
    assert glb["meshes"][0]["name"] == "Cube"
    # one file: the buffer is inside the glTF, not in a .bin beside it
    gltf = json.loads(files["cube.gltf"].read_text())
    buffer = gltf["buffers"][0]
    assert buffer["uri"].startswith("data:application/octet-stream;base64,")
    assert len(base64.b64decode(buffer["uri"].split(",", 1)[1])) == buffer["byteLength"]
    indices = gltf["accessors"][gltf["meshes"][0]["primitives"][0]["indices"]]
    assert indices["count"] == 36
    with zipfile.ZipFile(files["cube.3mf"]) as archive:
        assert archive.read("3D/3DModel.model").count(b"<triangle ") == 12
    assert b"<COLLADA" in files["cube.dae"].read_bytes()[:500]


def test_binary_and_ascii_models_convert_back(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "glb", "obj")
    job = run_job(
        client,
        {
            "cube": b64_import(_cube(tmp_path)),
            "glb": _convert("cube", "glb"),
            "fbx": _convert("cube", "fbx"),
            "from-glb": _convert("glb", "obj", filename="from-glb.obj"),
            "from-fbx": _convert("fbx", "ply", filename="from-fbx.ply"),
            "3ds": _convert("cube", "3ds"),
            # a 3DS scene's root is named <3DSRoot> and holds its meshes one level deeper than OBJ's:
            # Assimp alone wrote it unescaped into X3D, and wrote a 3MF without a mesh
            "from-3ds": _convert("3ds", "x3d", filename="from-3ds.x3d"),
            "3ds-3mf": _convert("3ds", "3mf", filename="from-3ds.3mf"),
            "export": {"operation": "export/url", "input": ["from-glb", "from-fbx", "from-3ds", "3ds-3mf"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    scene = ElementTree.parse(files["from-3ds.x3d"]).getroot()  # noqa: S314 - what our service wrote
    root = scene.find(".//Transform")
    assert root is not None
    assert root.get("DEF") == "<3DSRoot>"
    assert len(scene.findall(".//IndexedFaceSet")) == 1
    with zipfile.ZipFile(files["from-3ds.3mf"]) as archive:
        assert archive.read("3D/3DModel.model").count(b"<triangle ") == 12
    obj = files["from-glb.obj"].read_text().splitlines()
    assert sum(line.startswith("v ") for line in obj) == 8
    assert sum(line.startswith("f ") for line in obj) == 12
    assert _ply_faces(files["from-fbx.ply"].read_bytes()) == 6  # FBX keeps the quads


def test_triangulate_splits_polygons(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "obj", "ply")
    job = run_job(
        client,
        {
            "cube": b64_import(_cube(tmp_path)),
            "quads": _convert("cube", "ply", filename="quads.ply"),
            "triangles": _convert("cube", "ply", filename="triangles.ply", triangulate=True),
            "export": {"operation": "export/url", "input": ["quads", "triangles"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert _ply_faces(files["quads.ply"].read_bytes()) == 6
    assert _ply_faces(files["triangles.ply"].read_bytes()) == 12


def _gltf_reading(uri: str) -> str:
    """A glTF whose one triangle's corners are the first 36 bytes of the file at ``uri``."""
    return json.dumps(
        {
            "asset": {"version": "2.0"},
            "buffers": [{"uri": uri, "byteLength": 36}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                           "min": [-1e38] * 3, "max": [1e38] * 3}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 4}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
            "scene": 0,
        }
    )  # fmt: skip


@pytest.fixture(params=["bwrap", "none"])
def sealing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> str:
    """Each hostile case twice: sealed and confined, and with the seal forced off (the engine's
    own defusing of references alone)."""
    name = str(request.param)
    if name != "none":
        require_program(name)
    monkeypatch.setenv(seal.FORCE_VARIABLE, name)
    return name


def test_a_gltf_buffer_naming_a_file_outside_is_refused(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    # Left alone, Assimp reads the buffer from /etc/passwd (the seal leaves the system readable) and
    # writes its bytes into the glb as the triangle's coordinates.
    require_engine("assimp", "convert", "gltf", "glb")
    with listening_origin() as origin:
        uris = {
            "climbing": "../" * 16 + "etc/passwd",
            "absolute": "/etc/passwd",
            "file-url": "file:///etc/passwd",
            "escaped": "..%2F..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
            "loopback": f"{origin.url}/buffer.bin",
        }
        tasks: dict[str, Any] = {}
        for name, uri in uris.items():
            (tmp_path / f"{name}.gltf").write_text(_gltf_reading(uri))
            tasks[name] = b64_import(tmp_path / f"{name}.gltf")
            tasks[f"{name}-glb"] = {**_convert(name, "glb"), "ignore_error": True}
        job = run_job(client, tasks)
        assert origin.paths == []
    for name in uris:
        task = task_named(job, f"{name}-glb")
        assert task["status"] == "error", name
        assert task["code"] == "INVALID_INPUT_FILE", task["message"]
        assert "buffer names" in task["message"]


def test_a_model_naming_files_and_loopback_textures_reads_none(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "obj", "dae")
    made = run_job(
        client,
        {"cube": b64_import(_cube(tmp_path)), "dae": _convert("cube", "dae"),
         "export": {"operation": "export/url", "input": "dae"}},
    )  # fmt: skip
    cube_dae = download_all(made, tmp_path / "made")["cube.dae"].read_text()
    # Left alone, Assimp reads an .mtl outside the task (it climbs ../ from the model's directory)
    # and writes its material names into the output.
    (tmp_path / "outside.mtl").write_text("newmtl LeakedMaterialName\nKd 1 0 0\nmap_Kd file:///etc/passwd\n")
    climb = "../" * 16 + str(tmp_path / "outside.mtl").lstrip("/")
    (tmp_path / "hostile.obj").write_text(f"mtllib {climb}\n{CUBE}")
    with listening_origin() as origin:
        images = (
            "<library_images>"
            '<image id="a"><init_from>file:///etc/passwd</init_from></image>'
            f'<image id="b"><init_from>{origin.url}/texture.png</init_from></image>'
            '<image id="c"><init_from>../../../../../../../../etc/passwd</init_from></image>'
            "</library_images>"
        )
        (tmp_path / "hostile.dae").write_text(cube_dae.replace("<library_", images + "<library_", 1))
        job = run_job(
            client,
            {
                "obj": b64_import(tmp_path / "hostile.obj"),
                "dae": b64_import(tmp_path / "hostile.dae"),
                "obj-dae": _convert("obj", "dae"),
                "dae-glb": _convert("dae", "glb"),
                "export": {"operation": "export/url", "input": ["obj-dae", "dae-glb"]},
            },
        )
        assert origin.paths == []
    # the model converts, as it would with its .mtl or texture merely missing
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["hostile.dae", "hostile.glb"]
    for path in files.values():
        data = path.read_bytes()
        assert b"LeakedMaterialName" not in data
        assert b"root:x:0" not in data
