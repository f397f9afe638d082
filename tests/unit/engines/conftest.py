"""Builders for engine tests: small real input files and requests for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mcv_pipelines.service.engines.base import EngineRequest, InputFile

MakeRequest = Callable[..., EngineRequest]
MakeImage = Callable[..., Path]


@pytest.fixture
def make_image(tmp_path: Path) -> MakeImage:
    """Write a gradient image (so encoders have something to compress) and return its path."""

    def make(
        name: str = "photo.png",
        size: tuple[int, int] = (120, 80),
        mode: str = "RGB",
        exif: Image.Exif | None = None,
        frames: int = 1,
    ) -> Path:
        path = tmp_path / "in" / name
        path.parent.mkdir(exist_ok=True)
        images = []
        for index in range(frames):
            image = Image.new("RGB", size)
            image.putdata(
                [
                    ((x * 255) // size[0], (y * 255) // size[1], (index * 80) % 256)
                    for y in range(size[1])
                    for x in range(size[0])
                ]
            )
            images.append(image.convert(mode))
        params: dict[str, Any] = {}
        if exif is not None:
            params["exif"] = exif.tobytes()
        if frames > 1:
            params.update(save_all=True, append_images=images[1:])
        images[0].save(path, **params)
        return path

    return make


@pytest.fixture
def make_request(tmp_path: Path) -> MakeRequest:
    """An EngineRequest with fresh output and work directories under tmp_path."""
    counter = [0]

    def make(
        operation: str,
        input_format: str,
        output_format: str,
        inputs: Sequence[Path | InputFile],
        options: Mapping[str, Any] | None = None,
    ) -> EngineRequest:
        counter[0] += 1
        output_dir = tmp_path / f"out{counter[0]}"
        work_dir = tmp_path / f"work{counter[0]}"
        output_dir.mkdir()
        work_dir.mkdir()
        files = [item if isinstance(item, InputFile) else InputFile("import-1", item) for item in inputs]
        return EngineRequest(
            operation=operation,
            input_format=input_format,
            output_format=output_format,
            options=dict(options or {}),
            inputs=files,
            output_dir=output_dir,
            work_dir=work_dir,
        )

    return make
