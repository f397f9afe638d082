"""archive engine: every input goes in, names are safe and unique, the archive opens."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import py7zr
import pytest

from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.base import EngineError, EngineRequest, InputFile

MakeRequest = Callable[..., EngineRequest]
ENGINE = ArchiveEngine()


@pytest.fixture
def inputs(tmp_path: Path) -> list[InputFile]:
    first = tmp_path / "task-a" / "report.txt"
    second = tmp_path / "task-b" / "report.txt"  # same name from another task
    third = tmp_path / "task-b" / "photo.bin"
    for path, content in ((first, b"first"), (second, b"second"), (third, bytes(range(256)) * 40)):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content)
    return [InputFile("a", first), InputFile("b", second), InputFile("b", third)]


def _read_members(path: Path, fmt: str, tmp_path: Path) -> dict[str, bytes]:
    if fmt == "zip":
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None
            return {name: archive.read(name) for name in archive.namelist()}
    if fmt == "7z":
        target = tmp_path / "unpacked"
        with py7zr.SevenZipFile(path) as archive:
            archive.extractall(target)  # noqa: S202 -- our own archive, into tmp_path
        return {p.name: p.read_bytes() for p in target.iterdir()}
    with tarfile.open(path) as archive:
        result = {}
        for member in archive.getmembers():
            assert member.uname == ""
            assert member.uid == 0
            handle = archive.extractfile(member)
            assert handle is not None
            result[member.name] = handle.read()
        return result


@pytest.mark.parametrize("fmt", ["zip", "tar", "tar.gz", "tar.bz2", "7z"])
def test_archive_holds_every_input_with_unique_names(
    tmp_path: Path, make_request: MakeRequest, inputs: list[InputFile], fmt: str
) -> None:
    result = ENGINE.run(make_request("archive", "any", fmt, inputs))
    assert [path.name for path in result.files] == [f"archive.{fmt}"]
    members = _read_members(result.files[0], fmt, tmp_path)
    assert members == {
        "report.txt": b"first",
        "report-1.txt": b"second",
        "photo.bin": bytes(range(256)) * 40,
    }


def test_tar_gz_is_really_gzip(make_request: MakeRequest, inputs: list[InputFile]) -> None:
    result = ENGINE.run(make_request("archive", "any", "tar.gz", inputs))
    assert result.files[0].read_bytes()[:2] == b"\x1f\x8b"


def test_filename_option_names_the_archive_safely(make_request: MakeRequest, inputs: list[InputFile]) -> None:
    named = ENGINE.run(make_request("archive", "any", "zip", inputs, {"filename": "../../photos"}))
    assert [path.name for path in named.files] == ["photos.zip"]
    assert named.files[0].parent.name.startswith("out")
    kept = ENGINE.run(make_request("archive", "any", "tar.gz", inputs, {"filename": "backup.tar.gz"}))
    assert [path.name for path in kept.files] == ["backup.tar.gz"]


def test_rar_is_neither_listed_nor_run(make_request: MakeRequest, inputs: list[InputFile]) -> None:
    assert "rar" not in {t.output_format for t in ENGINE.conversion_types()}
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("archive", "any", "rar", inputs))
    assert caught.value.code == "UNSUPPORTED_CONVERSION"
    assert "zip" in caught.value.message


def test_archive_without_inputs_is_refused(make_request: MakeRequest) -> None:
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("archive", "any", "zip", []))
    assert caught.value.code == "MISSING_INPUT"


def test_cancelled_task_stops(make_request: MakeRequest, inputs: list[InputFile]) -> None:
    request = make_request("archive", "any", "zip", inputs)
    request.cancelled.set()
    with pytest.raises(EngineError) as caught:
        ENGINE.run(request)
    assert caught.value.code == "CANCELLED"
