"""Pillow, pypdf and the archive formats, run for real through the service's HTTP interface."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import httpx
import py7zr
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image
from pypdf import PdfReader


def test_image_convert_thumbnail_optimize_in_one_job(client: httpx.Client, tmp_path: Path) -> None:
    job = run_job(
        client,
        {
            "photo": b64_import(ASSETS / "photo.jpg"),
            "logo": b64_import(ASSETS / "logo.png"),
            "webp": {"operation": "convert", "input": "logo", "output_format": "webp"},
            "thumb": {
                "operation": "thumbnail", "input": "photo", "output_format": "png",
                "width": 64, "height": 64, "fit": "crop",
            },
            "small": {"operation": "optimize", "input": "photo", "input_format": "jpg"},
            "export": {"operation": "export/url", "input": ["webp", "thumb", "small"]},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    assert set(files) == {"logo.webp", "photo.png", "photo.jpg"}
    with Image.open(files["logo.webp"]) as webp:
        assert (webp.format, webp.size, webp.mode) == ("WEBP", (256, 256), "RGBA")
    with Image.open(files["photo.png"]) as thumb:
        assert thumb.size == (64, 64)
    assert files["photo.jpg"].stat().st_size < (ASSETS / "photo.jpg").stat().st_size
    with Image.open(files["photo.jpg"]) as small:
        assert small.size == (800, 600)


def test_image_watermark_and_metadata_round_trip(client: httpx.Client, tmp_path: Path) -> None:
    job = run_job(
        client,
        {
            "photo": b64_import(ASSETS / "photo.jpg"),
            "marked": {
                "operation": "watermark", "input": "photo", "text": "DRAFT",
                "font_size": 80, "font_color": "#ff0000", "opacity": 100,
            },
            "tagged": {
                "operation": "metadata/write", "input": "photo",
                "metadata": {"Artist": "Integration Test"}, "filename": "tagged.jpg",
            },
            "read": {"operation": "metadata", "input": "tagged"},
            "export": {"operation": "export/url", "input": ["marked", "tagged"]},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    with Image.open(ASSETS / "photo.jpg") as original, Image.open(files["photo.jpg"]) as marked:
        assert marked.size == original.size
        center = (400, 300)
        red, green, _ = marked.convert("RGB").getpixel(center)  # type: ignore[misc]  # Pillow types a pixel as a union
        assert red > 150, (red, green)
        assert green < 100, (red, green)
    with Image.open(files["tagged.jpg"]) as tagged:
        assert tagged.getexif().get(0x013B) == "Integration Test"  # Artist
    metadata = task_named(job, "read")["result"]["metadata"]
    assert "/tasks/" not in str(metadata)  # no path inside the service
    assert metadata.get("Artist") == "Integration Test", metadata


def test_pdf_merge_of_a_pdf_and_an_image_then_watermark(client: httpx.Client, tmp_path: Path) -> None:
    job = run_job(
        client,
        {
            "pages": b64_import(ASSETS / "pages.pdf"),
            "logo": b64_import(ASSETS / "logo.png"),
            "merged": {"operation": "merge", "input": ["pages", "logo"], "output_format": "pdf"},
            "marked": {
                "operation": "watermark", "input": "merged", "text": "CONFIDENTIAL",
                "filename": "marked.pdf",
            },
            "export": {"operation": "export/url", "input": ["merged", "marked"]},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    merged_name = next(name for name in files if name != "marked.pdf")
    merged = PdfReader(files[merged_name])
    assert len(merged.pages) == 3  # two pages, then the image on its own page
    original_text = PdfReader(ASSETS / "pages.pdf").pages[0].extract_text()
    assert merged.pages[0].extract_text() == original_text
    marked = PdfReader(files["marked.pdf"])
    assert len(marked.pages) == 3
    assert "CONFIDENTIAL" in marked.pages[0].extract_text()


def test_archives_zip_7z_targz_and_archive_multiple_files(client: httpx.Client, tmp_path: Path) -> None:
    sources = {
        "photo": b64_import(ASSETS / "photo.jpg"),
        "logo": b64_import(ASSETS / "logo.png"),
    }
    archives = {
        f"pack-{fmt.replace('.', '')}": {
            "operation": "archive", "input": ["photo", "logo"], "output_format": fmt,
            "filename": f"bundle.{fmt}",
        }
        for fmt in ("zip", "7z", "tar.gz")
    }  # fmt: skip
    job = run_job(
        client,
        {
            **sources,
            **archives,
            "export": {"operation": "export/url", "input": list(archives)},
            "together": {
                "operation": "export/url",
                "input": ["photo", "logo"],
                "archive_multiple_files": True,
            },
        },
    )
    files = download_all(job, tmp_path / "a")
    expected = {
        "photo.jpg": (ASSETS / "photo.jpg").read_bytes(),
        "logo.png": (ASSETS / "logo.png").read_bytes(),
    }
    with zipfile.ZipFile(files["bundle.zip"]) as zipped:
        assert {n: zipped.read(n) for n in zipped.namelist()} == expected
    with py7zr.SevenZipFile(files["bundle.7z"]) as seven:
        assert sorted(seven.getnames()) == sorted(expected)
    with tarfile.open(files["bundle.tar.gz"], "r:gz") as tar:
        contents = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]  # files only
        assert contents == expected
    together = download_all(job, tmp_path / "b", export="together")
    assert len(together) == 1
    [(name, path)] = together.items()
    assert name.endswith(".zip")
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as zipped:
        assert sorted(zipped.namelist()) == sorted(expected)
