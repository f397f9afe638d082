"""Game and modelling formats name textures, shaders and image clips by path (issue 47): an MD5 mesh's
shader, an OpenGEX or PMX material's texture and a LightWave image clip name the secrets planted outside the
task (by path and by a ``../`` climb). Under bubblewrap and under Landlock each converts, to glb (whose
exporter could embed an image it read) and to COLLADA, and neither output nor error holds a secret."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the fixtures and helpers of the hostile suite
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from mcv_pipelines.service.engines.base import Engine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from formats_support.samples_models import lwo, md5mesh, ogex, pmx  # the bench's samples, naming a file

RequireEngine = Callable[..., Engine]
__all__ = ["sealing", "secrets"]  # fixtures this module uses, imported from the hostile suite


def _named(secrets: Planted) -> list[str]:
    paths = [str(path) for path in (*secrets.text.values(), *secrets.pictures.values())]
    return [*paths, *("../" * 16 + path.lstrip("/") for path in paths), "/etc/passwd"]


@pytest.mark.parametrize("target", ["glb", "dae"])
def test_game_models_read_no_texture_or_clip_outside(
    target: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "md5mesh", target)
    task = {"operation": "convert", "output_format": target, "engine": "assimp"}
    samples: dict[str, bytes] = {}
    for i, path in enumerate(_named(secrets)):
        samples[f"shader-{i}.md5mesh"] = md5mesh(shader=path).encode()
        samples[f"texture-{i}.ogex"] = ogex(texture=path).encode()
        samples[f"clip-{i}.lwo"] = lwo(clip=path)
        samples[f"texture-{i}.pmx"] = pmx(texture=path)
    outcomes = {name: convert(client, tmp_path / name, name, data, task) for name, data in samples.items()}
    assert_nothing_out(outcomes, secrets)
    failed = {name: outcome.message for name, outcome in outcomes.items() if outcome.status != "finished"}
    assert failed == {}  # a name is only a name: each converts without what it names
