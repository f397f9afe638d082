"""Markdown (and Pandoc's other text inputs) to PDF through the service, without TeX: Pandoc's html
printed by the warm Chromium; a hostile document gets nothing of what it names into the PDF and makes
no request there."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from hostile_origin import listening_origin
from pypdf import PdfReader

from loopback_listener import Tripwire
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

NOTES = """# Release notes

Some *emphasis* and a table:

| city | visits |
|------|--------|
| Lyon | 12     |
"""


def _text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(path.read_bytes())).pages)


def test_markdown_and_rst_to_pdf_are_listed_and_printed_by_pandoc(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for source in ("md", "rst"):
        require_engine("pandoc", "convert", source, "pdf")
    wanted = {"filter[input_format]": "md", "filter[output_format]": "pdf"}
    listed = client.get("/v2/operations", params=wanted)
    assert [(kind["engine"], kind["meta"].get("pdf_printed_by")) for kind in listed.json()["data"]] == [
        ("pandoc", "chromium")
    ]
    (tmp_path / "notes.md").write_text(NOTES)
    (tmp_path / "guide.rst").write_text("Guide\n=====\n\nA *short* guide to Lyon.\n")
    job = run_job(
        client,
        {
            "md": b64_import(tmp_path / "notes.md"),
            "rst": b64_import(tmp_path / "guide.rst"),
            "md-pdf": {"operation": "convert", "input": "md", "output_format": "pdf", "page_format": "a4"},
            "rst-pdf": {"operation": "convert", "input": "rst", "output_format": "pdf", "filename": "g.pdf"},
            "export": {"operation": "export/url", "input": ["md-pdf", "rst-pdf"]},
        },
    )
    assert task_named(job, "md-pdf")["engine"] == "pandoc"
    assert "refused_requests" not in task_named(job, "md-pdf")["result"]  # the page asked for nothing
    files = download_all(job, tmp_path / "out")
    assert set(files) == {"notes.pdf", "g.pdf"}
    notes = PdfReader(io.BytesIO(files["notes.pdf"].read_bytes()))
    assert round(float(notes.pages[0].mediabox.width) / 72 * 25.4) == 210  # a4, the printer's option
    text = _text(files["notes.pdf"])
    assert "Release notes" in text
    assert "Lyon" in text
    assert "short guide to Lyon" in _text(files["g.pdf"])


def test_hostile_markdown_to_pdf_fetches_and_embeds_nothing(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pandoc", "convert", "md", "pdf")
    with listening_origin() as origin, Tripwire("127.0.0.1") as wire:
        (tmp_path / "evil.md").write_text(
            "# Evil\n\n"
            "![secret](file:///etc/passwd)\n\n"
            f"![remote]({origin.url}/image.png) and [a link]({origin.url}/link)\n\n"
            f'<iframe src="{origin.url}/frame"></iframe>\n\n'
            f'<img src="{wire.url}/raw.png">\n\n'
            "![private](http://10.0.0.7/x.png)\n\n"
            # raw HTML the AST cleaning keeps: the printed page itself must refuse what it asks for
            f'<link rel="preload" as="image" imagesrcset="{origin.url}/preload.png 1x">\n\n'
            # dropped by the AST cleaning (a refresh navigated the printed page away: "Printing failed")
            f'<meta http-equiv="refresh" content="0; url={origin.url}/refresh">\n\n'
            "---\ncss: /etc/passwd\n---\n"
        )
        job = run_job(
            client,
            {
                "md": b64_import(tmp_path / "evil.md"),
                "pdf": {"operation": "convert", "input": "md", "output_format": "pdf"},
                "export": {"operation": "export/url", "input": ["pdf"]},
            },
        )
        files = download_all(job, tmp_path / "out")
        assert origin.paths == []
        assert wire.hits == []
    refused = task_named(job, "pdf")["result"]["refused_requests"]
    assert [line for line in refused if "/preload.png" in line], refused  # it tried; the guard said no
    body = files["evil.pdf"].read_bytes()
    assert b"LOOPBACK-SECRET" not in body
    text = _text(files["evil.pdf"])
    assert "Evil" in text
    assert "LOOPBACK-SECRET" not in text
    assert "root:" not in text
    assert Path("/etc/passwd").read_text().startswith("root:")  # a copy would have been found above
