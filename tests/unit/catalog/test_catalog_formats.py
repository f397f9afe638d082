"""Formats from names, and the format a processing task produces."""

from __future__ import annotations

import pytest

from mcv_pipelines.catalog.formats import format_from_name, listing_formats, output_format_of


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("photo.JPG", "jpg"),
        ("x.jpeg", "jpg"),
        ("a.tar.gz", "tar.gz"),
        ("backup.TAR.BZ2", "tar.bz2"),
        ("my.archive.zip", "zip"),
        ("in/2024/report.final.pdf", "pdf"),
        ("photos/2024/img.png", "png"),  # an S3 key
        ("https://example.com/files/clip.MP4?sig=abc#t=3", "mp4"),
        ("https://example.com/a%20b.webp", "webp"),
        ("https://example.com/download?file=x.png", None),  # the format is not in the path
        ("https://example.com/", None),
        ("README", None),
        (".env", None),
        ("trailing.", None),
        ("C:\\Users\\me\\scan.TIFF", "tiff"),
    ],
)
def test_format_from_name(name: str, fmt: str | None) -> None:
    assert format_from_name(name) == fmt


@pytest.mark.parametrize(
    ("operation", "fin", "fout", "made"),
    [
        ("convert", "jpg", "webp", "webp"),
        ("convert", "jpg", "JPEG", "jpg"),
        ("thumbnail", "mp4", "png", "png"),
        ("optimize", "pdf", None, "pdf"),
        ("watermark", "pdf", None, "pdf"),
        ("metadata/write", "jpg", None, "jpg"),
        ("merge", "png", "pdf", "pdf"),
        ("merge", None, None, "pdf"),
        ("archive", "jpg", "zip", "zip"),
        ("capture-website", None, "png", "png"),
        ("metadata", "jpg", None, "json"),
        ("command", "mp4", None, None),
        ("convert", "jpg", None, None),
    ],
)
def test_output_format_of(operation: str, fin: str | None, fout: str | None, made: str | None) -> None:
    assert output_format_of(operation, fin, fout) == made


def test_listing_formats_follow_the_listing_conventions() -> None:
    assert listing_formats("archive", "jpg", "zip") == ("any", "zip")
    assert listing_formats("command", "mp4", None) == ("any", "any")
    assert listing_formats("capture-website", None, "pdf") == ("website", "pdf")
    assert listing_formats("optimize", "PDF", None) == ("pdf", "pdf")
