"""Every example pipeline the local engines can run, end to end on the embedded default; the files
that land on disk are opened and checked, not just counted."""

from __future__ import annotations

import json
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader
from run_helpers import asset, pipeline

from mcv_pipelines.cli.main import main
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--progress", "plain"])
    out, err = capsys.readouterr()
    return code, out, err


def test_product_images_quick_start(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, pipeline("product-images"), "-p", f"photo={asset('photo.jpg')}")
    assert code == 0, err
    assert err.count("embedded local service") == 1
    folder = isolated / "out" / "product-images" / "photo"
    with Image.open(asset("photo.jpg")) as source:
        source_size = source.size
    for width in (320, 640):
        with Image.open(folder / f"photo-{width}w.webp") as image:
            assert image.format == "WEBP"
            assert image.width == width
            assert abs(image.height - round(source_size[1] * width / source_size[0])) <= 1
    assert len(PdfReader(folder / "photo-sheet.pdf").pages) == 1
    assert "photo-320w.webp" in out
    assert "credits: 3" in out


def test_thumbnails_sizes_and_formats(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, pipeline("thumbnails"), "-p", f"image={asset('logo.png')}")
    assert code == 0, err
    folder = isolated / "out" / "thumbnails" / "logo"
    for size, fmt in ((48, "PNG"), (96, "PNG"), (256, "WEBP")):
        with Image.open(folder / f"logo-{size}.{fmt.lower()}") as image:
            assert (image.format, image.size) == (fmt, (size, size))


def test_documents_merge_page_count(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    params = isolated / "params.json"
    params.write_text(
        json.dumps({"images": [asset("photo.jpg"), asset("logo.png")], "document": asset("pages.pdf")})
    )
    code, _, err = run(
        capsys, pipeline("documents-merge"), "--params-file", str(params), "-p", "title=bundle"
    )
    assert code == 0, err
    merged = PdfReader(isolated / "out" / "documents-merge" / "bundle.pdf")
    assert len(merged.pages) == 2 + len(PdfReader(asset("pages.pdf")).pages)


@pytest.mark.parametrize("archive_format", ["zip", "tar.gz"])
def test_archive_renditions_members(
    isolated: Path, capsys: pytest.CaptureFixture[str], archive_format: str
) -> None:
    code, _, err = run(
        capsys,
        pipeline("archive-renditions"),
        "-p",
        f"photo={asset('photo.jpg')}",
        "-p",
        f"archive_format={archive_format}",
        "-p",
        "width=200",
        "--out",
        "renditions",
    )
    assert code == 0, err
    path = isolated / "renditions" / f"photo-renditions.{archive_format}"
    if archive_format == "zip":
        with zipfile.ZipFile(path) as archive:
            names = sorted(archive.namelist())
            with archive.open("photo-200.png") as member:
                assert Image.open(member).width == 200
    else:
        with tarfile.open(path) as archive:
            names = sorted(m.name.split("/")[-1] for m in archive.getmembers() if m.isfile())
    assert names == ["photo-200.pdf", "photo-200.png", "photo-200.webp"]


def test_audio_command_with_ffmpeg(
    isolated: Path, capsys: pytest.CaptureFixture[str], require_engine: RequireEngine
) -> None:
    require_engine("ffmpeg")
    code, _, err = run(capsys, pipeline("audio-command"), "-p", f"audio={asset('tone.wav')}")
    assert code == 0, err
    folder = isolated / "out" / "audio-command"
    mp3 = (folder / "tone.mp3").read_bytes()
    ogg = (folder / "tone.ogg").read_bytes()
    assert mp3[:3] == b"ID3" or mp3[0] == 0xFF  # an ID3 tag or an MPEG frame sync
    assert ogg[:4] == b"OggS"


def test_office_to_pdf_with_libreoffice(
    isolated: Path, capsys: pytest.CaptureFixture[str], require_engine: RequireEngine
) -> None:
    require_engine("libreoffice", "convert", "docx", "pdf")
    code, _, err = run(
        capsys,
        pipeline("office-to-pdf"),
        "-p",
        f"document={asset('letter.docx')}",
        "-p",
        "title=Quarterly letter",
    )
    assert code == 0, err
    reader = PdfReader(isolated / "out" / "office-to-pdf" / "letter.pdf")
    assert len(reader.pages) >= 1
    assert reader.metadata is not None
    assert reader.metadata.title == "Quarterly letter"
