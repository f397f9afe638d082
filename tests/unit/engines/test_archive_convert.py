"""convert of an archive into another format: hostile member names, links and bombs stay harmless."""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import py7zr
import pytest

from mcv_pipelines.service.engines.archive import unpack
from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.base import EngineError, EngineRequest

MakeRequest = Callable[..., EngineRequest]


def _hostile_tar(path: Path) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, body in (("../../escape.txt", b"up"), ("/etc/cron.d/job", b"abs"), ("ok/a.txt", b"fine")):
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
        link = tarfile.TarInfo("ok/passwd")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)


def test_member_names_are_made_relative_and_links_are_dropped(
    make_request: MakeRequest, tmp_path: Path
) -> None:
    source = tmp_path / "hostile.tar.gz"
    _hostile_tar(source)
    result = ArchiveEngine().run(make_request("convert", "tar.gz", "zip", [source]))
    [out] = result.files
    assert out.name == "hostile.zip"
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["escape.txt", "etc/cron.d/job", "ok/a.txt"]
        assert archive.read("ok/a.txt") == b"fine"
    assert not (tmp_path.parent / "escape.txt").exists()


def test_a_bomb_fails_with_a_clear_code(
    make_request: MakeRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "bomb.zip"
    with zipfile.ZipFile(source, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.bin", bytes(4 * 1024 * 1024))  # 4 MB of zeros pack into ~4 KB
    monkeypatch.setattr(unpack, "MAX_TOTAL_BYTES", 1024 * 1024)
    with pytest.raises(EngineError) as failed:
        ArchiveEngine().run(make_request("convert", "zip", "7z", [source]))
    assert failed.value.code == "INVALID_INPUT_FILE"
    assert "unpacks to more than 1 MB" in failed.value.message


def test_too_many_members_fail(
    make_request: MakeRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "many.7z"
    with py7zr.SevenZipFile(source, "w") as archive:
        for n in range(5):
            archive.writestr(b"x", f"f{n}.txt")
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 3)
    with pytest.raises(EngineError) as failed:
        ArchiveEngine().run(make_request("convert", "7z", "tar", [source]))
    assert failed.value.code == "INVALID_INPUT_FILE"


def test_a_file_that_is_no_archive_is_invalid_input(make_request: MakeRequest, tmp_path: Path) -> None:
    source = tmp_path / "fake.7z"
    source.write_text("not an archive")
    with pytest.raises(EngineError) as failed:
        ArchiveEngine().run(make_request("convert", "7z", "zip", [source]))
    assert failed.value.code == "INVALID_INPUT_FILE"
