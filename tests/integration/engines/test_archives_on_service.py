"""The wider archive formats of issue 47 through the real service: cab, iso, cpio, ar, deb, arj, Z and
lzma read by unar, zst and lz4 (and their tar forms) read and written with zstandard and lz4, each
sample made by its own program (tests/archive_samples.py)."""

from __future__ import annotations

import io
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named

from archive_samples import PROGRAMS, SINGLE, TREE, make_archive
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(client: httpx.Client, source: Path, target: str, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    job = run_job(
        client,
        {
            "in": b64_import(source),
            "out": {"operation": "convert", "input": "in", "output_format": target},
            "export": {"operation": "export/url", "input": "out"},
        },
    )
    task = task_named(job, "out")
    assert task["status"] == "finished", task.get("message")
    (made,) = download_all(job, tmp_path / "out").values()
    return task, made


@pytest.mark.parametrize(("fmt", "engine"), [
    ("cpio", "unar"), ("iso", "unar"), ("cab", "unar"), ("arj", "unar"), ("tar.z", "unar"),
    ("tar.zst", "archive"),
])  # fmt: skip
def test_an_archive_becomes_a_zip_with_its_folders_and_bytes(
    fmt: str, engine: str, require_engine: RequireEngine, require_program: Callable[..., str],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine(engine, "convert", fmt, "zip")
    require_program(PROGRAMS[fmt])
    task, made = _convert(client, make_archive(fmt, tmp_path, "photos"), "zip", tmp_path)
    assert task["engine"] == engine
    assert made.name == "photos.zip"
    with zipfile.ZipFile(made) as archive:
        assert {name: archive.read(name) for name in archive.namelist()} == TREE


def test_a_cpio_becomes_a_tar_zst_readable_by_zstd(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "cpio", "tar.zst")
    require_program("cpio")
    import zstandard

    _, made = _convert(client, make_archive("cpio", tmp_path), "tar.zst", tmp_path)
    assert made.name == "sample.tar.zst"
    tarred = zstandard.ZstdDecompressor().stream_reader(made.read_bytes()).read()
    with tarfile.open(fileobj=io.BytesIO(tarred)) as archive:
        found = {info.name: archive.extractfile(info).read() for info in archive if info.isfile()}  # type: ignore[union-attr]  # a file has data
    assert found == TREE


@pytest.mark.parametrize(
    ("fmt", "engine"), [("z", "unar"), ("lzma", "unar"), ("zst", "archive"), ("lz4", "archive")]
)
def test_a_single_compressed_file_is_one_member_named_without_its_extension(
    fmt: str, engine: str, require_engine: RequireEngine, require_program: Callable[..., str],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine(engine, "convert", fmt, "zip")
    require_program(PROGRAMS[fmt])
    made_by_program = make_archive(fmt, tmp_path)
    source = tmp_path / f"report.txt.{fmt}"
    made_by_program.rename(source)
    _, made = _convert(client, source, "zip", tmp_path)
    with zipfile.ZipFile(made) as archive:
        # unar names a .Z or .lzma member by the archive's name too
        assert archive.namelist() == ["report.txt"]
        assert archive.read("report.txt") == SINGLE


def test_a_debian_package_keeps_its_three_members(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "deb", "tar")
    require_program("dpkg-deb")
    _, made = _convert(client, make_archive("deb", tmp_path), "tar", tmp_path)
    with tarfile.open(made) as archive:
        assert archive.getnames() == ["debian-binary", "control.tar.xz", "data.tar.xz"]


def test_a_zip_named_cab_is_refused_naming_what_it_is(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "cab", "zip")
    source = tmp_path / "setup.cab"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("a.txt", "a")
    convert = {"operation": "convert", "input": "in", "output_format": "tar"}
    job = run_job(client, {"in": b64_import(source), "out": convert})
    task = task_named(job, "out")
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "setup.cab was declared cab but is Zip" in task["message"]


def test_a_tar_becomes_an_iso_image_with_its_folders_readable_by_isoinfo(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("xorriso", "convert", "tar", "iso")
    isoinfo = require_program("isoinfo")
    source = tmp_path / "Holiday photos.tar"
    with tarfile.open(source, "w") as archive:
        for name, data in {**TREE, "a": b"a file", "a/b.txt": b"under a file's name"}.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_700_000_000
            archive.addfile(info, io.BytesIO(data))
    task, made = _convert(client, source, "iso", tmp_path)
    assert task["engine"] == "xorriso"
    assert made.name == "Holiday photos.iso"

    def read(*argv: str) -> bytes:
        return subprocess.run([isoinfo, "-R", "-i", str(made), *argv], capture_output=True, check=True).stdout

    assert b"Volume id: HOLIDAY_PHOTOS" in read("-d")
    assert read("-x", "/notes/quokka.txt") == TREE["notes/quokka.txt"]
    assert read("-x", "/data/bytes.bin") == TREE["data/bytes.bin"]
    assert read("-x", "/a") == b"a file"
    assert read("-x", "/a_b.txt") == b"under a file's name"  # its folder's name was a file's already
    assert "2023" in read("-l").decode()  # the members' dates kept (14 November 2023)
