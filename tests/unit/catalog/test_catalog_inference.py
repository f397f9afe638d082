"""Formats flowing along a pipeline's tasks."""

from __future__ import annotations

from typing import Any

import pytest

from mcv_pipelines.catalog.inference import import_format, infer_formats


@pytest.mark.parametrize(
    ("task", "fmt"),
    [
        ({"operation": "import/upload", "upload_from": "pipelines/assets/photo.JPG"}, "jpg"),
        ({"operation": "import/url", "url": "https://example.com/a/report.pdf?x=1"}, "pdf"),
        ({"operation": "import/url", "url": "https://example.com/download"}, None),
        ({"operation": "import/url", "url": "https://example.com/download", "filename": "x.docx"}, "docx"),
        ({"operation": "import/s3", "bucket": "b", "key": "in/2024/clip.mov"}, "mov"),
        ({"operation": "import/base64", "file": "aGk=", "filename": "notes.md"}, "md"),
        ({"operation": "import/s3", "bucket": "b", "key_prefix": "in/"}, None),
    ],
)
def test_import_format(task: dict[str, Any], fmt: str | None) -> None:
    assert import_format(task) == fmt


def test_formats_flow_along_the_graph() -> None:
    tasks: dict[str, dict[str, Any]] = {
        "photo": {"operation": "import/upload", "upload_from": "photo.jpg"},
        "scan": {"operation": "import/url", "url": "https://x/scan.png"},
        "fetch": {"operation": "import/url", "url": "https://x/get?id=1"},
        "web": {"operation": "convert", "input": "photo", "output_format": "webp"},
        "thumb": {"operation": "thumbnail", "input": "web", "output_format": "png"},
        "small": {"operation": "optimize", "input": "thumb"},
        "sheet": {"operation": "merge", "input": ["photo", "scan"], "output_format": "pdf"},
        "stamp": {"operation": "watermark", "input": "sheet", "text": "DRAFT"},
        "zip": {"operation": "archive", "input": ["web", "stamp"], "output_format": "zip"},
        "meta": {"operation": "metadata", "input": "photo"},
        "raw": {"operation": "command", "input": "photo", "engine": "ffmpeg", "command": "ffmpeg"},
        "after": {"operation": "convert", "input": "raw", "output_format": "png"},
        "forced": {"operation": "convert", "input": "fetch", "input_format": "JPEG", "output_format": "png"},
        "unknown": {"operation": "convert", "input": "fetch", "output_format": "png"},
        "out": {"operation": "export/url", "input": ["zip", "meta"]},
    }
    flow = infer_formats(tasks, list(tasks))
    made = {name: f.output for name, f in flow.items()}
    assert made == {
        "photo": "jpg", "scan": "png", "fetch": None, "web": "webp", "thumb": "png", "small": "png",
        "sheet": "pdf", "stamp": "pdf", "zip": "zip", "meta": "json", "raw": None, "after": "png",
        "forced": "png", "unknown": "png", "out": None,
    }  # fmt: skip
    assert flow["thumb"].input_format == "webp"
    assert flow["sheet"].input_formats == ("jpg", "png")
    assert flow["sheet"].input_format is None  # mixed: merge is checked once per input format
    assert flow["after"].input_format is None  # command output cannot be known
    assert flow["forced"].input_format == "jpg"
    assert flow["unknown"].input_format is None
