"""The pure guards of the wider archives: which lsar entries are taken, and the double extensions."""

from __future__ import annotations

from typing import Any

import pytest

from mcv_pipelines.catalog.formats import format_from_name
from mcv_pipelines.service.engines.archive.rar import UNAR_READABLE, rar_members
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.files import split_extension
from mcv_pipelines.service.files.paths import file_format


def _entry(index: int, name: str, **more: Any) -> dict[str, Any]:
    return {"XADIndex": index, "XADFileName": name, "XADFileSize": 3, **more}


def test_only_regular_files_are_taken_by_their_mode_too() -> None:
    listing = {"lsarContents": [
        _entry(0, "kept.txt", XADPosixPermissions=0o104755),  # setuid: taken (its bits dropped on unpacking)
        _entry(1, "null", XADPosixPermissions=0o020666),  # a character device lsar does not flag
        _entry(2, "disk", XADPosixPermissions=0o060660),
        _entry(3, "pipe", XADPosixPermissions=0o010644),
        _entry(4, "link", XADPosixPermissions=0o120777),
        _entry(5, "dir", XADIsDirectory=1),
        _entry(6, "plain.txt"),
    ]}  # fmt: skip
    assert [m.name for m in rar_members(listing, "a.cpio", "cpio")] == ["kept.txt", "plain.txt"]


def test_a_member_of_unknown_size_is_taken_and_a_claimed_bomb_refused() -> None:
    single = {"lsarContents": [{"XADIndex": 0, "XADFileName": "report.txt"}]}
    assert [m.size for m in rar_members(single, "report.txt.Z", "z")] == [None]
    bomb = {"lsarContents": [_entry(0, "a", XADFileSize=3 * 1024**3)]}
    with pytest.raises(EngineError, match="unpacks to more than"):
        rar_members(bomb, "a.cab", "cab")


def test_an_unreadable_listing_names_the_declared_kind() -> None:
    with pytest.raises(EngineError, match=r"x\.iso is not an ISO 9660 image unar can read"):
        rar_members({}, "x.iso", "iso")


@pytest.mark.parametrize("fmt", ["tar.zst", "tar.lz4", "tar.lzma", "tar.z"])
def test_the_tar_forms_are_one_extension_everywhere(fmt: str) -> None:
    name = f"backup.{fmt.replace('.z', '.Z') if fmt == 'tar.z' else fmt}"
    assert format_from_name(name) == fmt
    assert file_format(name) == fmt
    assert split_extension(name)[0] == "backup"


def test_deb_and_ar_are_both_ar_to_lsar() -> None:
    assert UNAR_READABLE["deb"] == UNAR_READABLE["ar"] == "Ar"
