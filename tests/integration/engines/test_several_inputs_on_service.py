"""A convert, thumbnail or optimize task fed several files (a prefix import, or several inputs) makes
one output of each, every file through the engine its own format needs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image

from mcv_pipelines.service.engines.base import Engine


def test_a_photo_and_a_pdf_each_become_a_png_thumbnail(
    client: httpx.Client, require_engine: Callable[..., Engine], tmp_path: Path
) -> None:
    require_engine("pillow", "thumbnail", "jpg", "png")
    require_engine("poppler", "thumbnail", "pdf", "png")
    job = run_job(
        client,
        {
            "photo": b64_import(ASSETS / "photo.jpg"),
            "pages": b64_import(ASSETS / "pages.pdf"),
            "thumb": {
                "operation": "thumbnail",
                "input": ["photo", "pages"],
                "output_format": "png",
                "width": 40,
                "filename": "thumb-%d.png",
            },
            "export": {"operation": "export/url", "input": "thumb"},
        },
    )
    assert job["status"] == "finished", job
    assert [f["filename"] for f in task_named(job, "thumb")["result"]["files"]] == [
        "thumb-1.png",
        "thumb-2.png",
    ]
    for path in download_all(job, tmp_path).values():
        with Image.open(path) as image:
            assert (image.format, image.width) == ("PNG", 40)
