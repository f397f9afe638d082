"""Poppler's pdftotext and pdftohtml through the service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def test_pdf_to_text_and_html(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("poppler-text", "convert", "pdf", "html")
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "txt": {"operation": "convert", "input": "pdf", "output_format": "txt"},
            "first": {
                "operation": "convert", "input": "pdf", "output_format": "txt",
                "last_page": 1, "filename": "first.txt",
            },
            "html": {"operation": "convert", "input": "pdf", "output_format": "html"},
            "export": {"operation": "export/url", "input": ["txt", "first", "html"]},
        },
    )  # fmt: skip
    assert task_named(job, "txt")["engine"] == "poppler-text"
    files = download_all(job, tmp_path)
    text = files["pages.txt"].read_text()
    assert "Page 1 of 2" in text
    assert "Page 2 of 2" in text
    assert "Page 2 of 2" not in files["first.txt"].read_text()
    page = files["pages.html"].read_text()
    assert "<html" in page
    assert "Page 2 of 2" in page.replace("&#160;", " ")
