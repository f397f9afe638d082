"""Pandoc through the service: Markdown to docx, html and odt, docx back to html, hostile input."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from hostile_origin import listening_origin

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

NOTES = """# Release notes

Some *emphasis*, a [link](https://example.org) and a table:

| city | visits |
|------|--------|
| Lyon | 12     |
"""


def _convert(source: str, target: str) -> dict[str, str]:
    return {"operation": "convert", "input": source, "output_format": target}


def _zip_text(path: Path, member: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(member).decode("utf-8")


def test_markdown_to_docx_html_odt(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for target in ("docx", "html", "odt"):
        require_engine("pandoc", "convert", "md", target)
    (tmp_path / "notes.md").write_text(NOTES)
    job = run_job(
        client,
        {
            "md": b64_import(tmp_path / "notes.md"),
            **{t: _convert("md", t) for t in ("docx", "html", "odt")},
            "export": {"operation": "export/url", "input": ["docx", "html", "odt"]},
        },
    )
    assert {task_named(job, t)["engine"] for t in ("docx", "html", "odt")} == {"pandoc"}
    files = download_all(job, tmp_path / "out")
    assert set(files) == {"notes.docx", "notes.html", "notes.odt"}
    body = _zip_text(files["notes.docx"], "word/document.xml")
    assert "Release notes" in body
    assert "Lyon" in body
    assert "<w:tbl>" in body
    page = files["notes.html"].read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<table>" in page
    assert "<em>emphasis</em>" in page
    assert "Lyon" in _zip_text(files["notes.odt"], "content.xml")


def test_docx_to_markdown(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("pandoc", "convert", "docx", "md")
    job = run_job(
        client,
        {
            "docx": b64_import(ASSETS / "letter.docx"),
            "md": {"operation": "convert", "input": "docx", "output_format": "md", "engine": "pandoc"},
            "export": {"operation": "export/url", "input": ["md"]},
        },
    )
    markdown = download_all(job, tmp_path)["letter.md"].read_text()
    assert len(markdown.split()) > 3  # the letter's words, as Markdown


def test_hostile_markdown_fetches_and_embeds_nothing(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for target in ("docx", "epub", "html"):
        require_engine("pandoc", "convert", "md", target)
    with listening_origin() as origin:
        (tmp_path / "evil.md").write_text(
            "# Evil\n\n"
            "![secret](file:///etc/hostname)\n\n"
            f"![remote]({origin.url}/image.png)\n\n"
            f'<img src="{origin.url}/raw.png">\n\n'
            "---\ncover-image: /etc/hostname\n---\n"
        )
        job = run_job(
            client,
            {
                "md": b64_import(tmp_path / "evil.md"),
                **{t: _convert("md", t) for t in ("docx", "epub", "html")},
                "export": {"operation": "export/url", "input": ["docx", "epub", "html"]},
            },
        )
        files = download_all(job, tmp_path / "out")
        assert origin.paths == []
    hostname = Path("/etc/hostname").read_bytes().strip()
    for name in ("evil.docx", "evil.epub"):
        with zipfile.ZipFile(files[name]) as archive:
            members = archive.namelist()
            assert not [m for m in members if "media" in m or m.endswith((".png", ".jpg"))], members
            for member in members:
                assert b"LOOPBACK-SECRET" not in archive.read(member)
    assert b"LOOPBACK-SECRET" not in files["evil.html"].read_bytes()
    assert "data:" not in files["evil.html"].read_text()  # nothing embedded, links stay links
    assert hostname  # the file exists, so an embedded copy would have been found above


def test_markdown_to_a_man_page_and_back_to_html(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """Issue 23, breadth: Pandoc writes a whole man page (``.TH`` header) and reads one."""
    require_engine("pandoc", "convert", "md", "man")
    require_engine("pandoc", "convert", "man", "html")
    source = tmp_path / "quokka.md"
    source.write_text("---\ntitle: QUOKKA\n---\n\n# NAME\n\nquokka - a small wallaby\n")
    job = run_job(
        client,
        {
            "md": b64_import(source),
            "man": {"operation": "convert", "input": "md", "output_format": "man"},
            "html": {"operation": "convert", "input": "man", "output_format": "html"},
            "export": {"operation": "export/url", "input": ["man", "html"]},
        },
    )
    assert task_named(job, "man")["engine"] == "pandoc"
    files = download_all(job, tmp_path / "out")
    page = files["quokka.man"].read_text()
    assert '.TH "QUOKKA"' in page
    assert "a small wallaby" in files["quokka.html"].read_text()
