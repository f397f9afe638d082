"""Hostile archives of issue 47's wider formats, under bubblewrap and Landlock as the other hostile cases
(test_hostile_files_see_only_their_task.py, whose fixtures and helpers these use): a cpio and an ISO
image whose members climb out (``../`` and absolute names), link to the planted secrets, are device
nodes or carry setuid bits convert with only their regular files, made safe, written inside the task
(an ISO's links come as the empty files its Joliet tree holds), as tar or as an ISO image xorriso writes;
a Z, zst or lz4 file that decompresses past the limit fails INVALID_INPUT_FILE, having written no more
than the limit (lowered here to 1 MB so the bomb is small)."""

from __future__ import annotations

import os
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import assert_nothing_out, convert, sealing, secrets

from archive_samples import CpioEntry, cpio_newc
from engine_needs import unavailable
from mcv_pipelines.service.engines.archive import rar, unpack
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.user_entry import nss_wrapper

__all__ = ["sealing", "secrets"]  # pytest finds fixtures by their names in this module

RequireEngine = Callable[..., Engine]
KEPT = b"an ordinary member"


@pytest.fixture
def unar_reads_dates(sealing: str) -> None:
    """GNUstep (lsar, unar) asks for the user's passwd entry while it reads an archive's dates.
    Landlock hides /etc/passwd and nss-systemd makes up only root's, so as any other user the engine
    gives unar an entry of its own through nss_wrapper (engines/user_entry.py); without the library
    installed an iso or cpio cannot be read there, and these cases say so."""
    if sealing == "landlock" and os.geteuid() != 0 and nss_wrapper() is None:
        unavailable("unar under Landlock as a user other than root needs nss_wrapper (libnss-wrapper)")


def _hostile_cpio(secrets: Planted) -> bytes:
    entries = [CpioEntry("kept.txt", 0o104755, KEPT)]  # setuid, executable
    for place, path in {**secrets.text, **secrets.pictures}.items():
        entries += [
            CpioEntry(f"link-{place}", 0o120777, str(path).encode()),
            CpioEntry(
                f"{'../' * 12}{str(path.parent).lstrip('/')}/escaped-cpio.txt", data=b"written outside"
            ),
            CpioEntry(f"{path.parent}/escaped-abs.txt", data=b"written outside"),
        ]
    entries += [CpioEntry("null", 0o020666, rdev=(1, 3)), CpioEntry("disk", 0o060660, rdev=(8, 0)),
                CpioEntry("pipe", 0o010644)]  # fmt: skip
    return cpio_newc(entries)


def _members(made: Path) -> dict[str, tarfile.TarInfo]:
    """The members of the tar the conversion exported (``convert`` saved it under ``out``)."""
    with tarfile.open(made) as archive:
        return {info.name: info for info in archive}


@pytest.mark.usefixtures("unar_reads_dates")
def test_a_cpio_climbing_out_linking_out_and_holding_devices_keeps_only_its_files(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "cpio", "tar")
    before = {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()}
    outcome = convert(client, tmp_path, "hostile.cpio", _hostile_cpio(secrets), {"operation": "convert",
                      "output_format": "tar"})  # fmt: skip
    assert_nothing_out({"hostile.cpio": outcome}, secrets)
    assert outcome.status == "finished", outcome.message
    members = _members(tmp_path / "out" / "hostile.tar")
    assert all(info.isfile() and info.mode == 0o644 for info in members.values())  # no setuid, no devices
    assert "kept.txt" in members
    assert not any(name.startswith(("/", "..")) or name.startswith("link-") for name in members)
    assert {name.rsplit("/", 1)[-1] for name in members} == {
        "kept.txt",
        "escaped-cpio.txt",
        "escaped-abs.txt",
    }
    assert {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()} == before


@pytest.mark.usefixtures("unar_reads_dates")
def test_an_iso_linking_out_keeps_only_its_files(
    secrets: Planted, require_engine: RequireEngine, require_program: Callable[..., str],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("unar", "convert", "iso", "tar")
    require_program("genisoimage")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kept.txt").write_bytes(KEPT)
    for place, path in {**secrets.text, **secrets.pictures}.items():
        (tree / f"link-{place}").symlink_to(path)
        (tree / f"up-{place}").symlink_to(f"{'../' * 12}{str(path).lstrip('/')}")
    image = subprocess.run(["genisoimage", "-quiet", "-R", "-J", "."], cwd=tree, capture_output=True,
                           check=True).stdout  # fmt: skip
    outcome = convert(client, tmp_path, "links.iso", image, {"operation": "convert", "output_format": "tar"})
    assert_nothing_out({"links.iso": outcome}, secrets)
    assert outcome.status == "finished", outcome.message
    members = _members(tmp_path / "out" / "links.tar")
    # unar reads the Joliet names, where a Rock Ridge link is an empty file: nothing of its target comes
    assert members["kept.txt"].size == len(KEPT)
    assert all(info.size == 0 and info.isfile() for name, info in members.items() if name != "kept.txt")


@pytest.mark.parametrize(("fmt", "engine", "compressor"), [
    ("z", "unar", ["compress", "-c"]), ("zst", "archive", ["zstd", "-q", "-c"]),
    ("lz4", "archive", ["lz4", "-q", "-c"]),
])  # fmt: skip
def test_a_compressed_bomb_fails_at_the_limit(
    fmt: str, engine: str, compressor: list[str], secrets: Planted, require_engine: RequireEngine,
    require_program: Callable[..., str], client: httpx.Client, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    require_engine(engine, "convert", fmt, "zip")
    require_program(compressor[0])
    monkeypatch.setattr(rar, "MAX_TOTAL_BYTES", 1024**2)
    monkeypatch.setattr(unpack, "MAX_TOTAL_BYTES", 1024**2)
    bomb = subprocess.run(compressor, input=b"\0" * 8 * 1024**2, capture_output=True, check=True).stdout
    assert len(bomb) < 400_000
    outcome = convert(
        client, tmp_path, f"zeros.{fmt}", bomb, {"operation": "convert", "output_format": "zip"}
    )
    assert outcome.status == "error"
    assert outcome.message == f"INVALID_INPUT_FILE: zeros.{fmt} unpacks to more than 1 MB", outcome.message


@pytest.mark.usefixtures("unar_reads_dates")
def test_a_hostile_cpio_becomes_an_iso_of_its_files_only(
    secrets: Planted, require_engine: RequireEngine, require_program: Callable[..., str],
    client: httpx.Client, tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("xorriso", "convert", "cpio", "iso")
    isoinfo = require_program("isoinfo")
    before = {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()}
    outcome = convert(client, tmp_path, "hostile.cpio", _hostile_cpio(secrets), {"operation": "convert",
                      "output_format": "iso"})  # fmt: skip
    assert_nothing_out({"hostile.cpio": outcome}, secrets)
    assert outcome.status == "finished", outcome.message
    image = str(tmp_path / "out" / "hostile.iso")
    listing = subprocess.run(
        [isoinfo, "-R", "-l", "-i", image], capture_output=True, text=True, check=True
    ).stdout
    entries = [line for line in listing.splitlines() if line[:1] in "-dlcbps" and line.strip()]
    assert all(line[0] in "-d" and "s" not in line[1:10] for line in entries)  # no link, device, setuid
    found = subprocess.run([isoinfo, "-R", "-x", "/kept.txt", "-i", image], capture_output=True, check=True)
    assert found.stdout == KEPT
    assert {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()} == before
