"""convert of a RAR archive (read with unar) into zip and tar.gz through the service, under the same
member-name and size guards as the archive engine's convert."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named

from mcv_pipelines.service.engines.base import Engine
from rar_sample import rar4

RequireEngine = Callable[..., Engine]


def test_rar_to_zip_and_tar_gz_keeps_folders_and_makes_names_safe(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "rar", "zip")
    source = tmp_path / "site.rar"
    source.write_bytes(
        rar4([("index.html", b"<h1>home</h1>"), ("img/logo.svg", b"<svg/>"), ("../../escape.txt", b"out")])
    )
    job = run_job(
        client,
        {
            "rar": b64_import(source),
            "zip": {"operation": "convert", "input": "rar", "output_format": "zip"},
            "tgz": {"operation": "convert", "input": "rar", "output_format": "tar.gz"},
            "export": {"operation": "export/url", "input": ["zip", "tgz"]},
        },
    )
    assert task_named(job, "zip")["engine"] == "unar"
    files = download_all(job, tmp_path / "out")
    with zipfile.ZipFile(files["site.zip"]) as archive:
        assert sorted(archive.namelist()) == ["escape.txt", "img/logo.svg", "index.html"]
        assert archive.read("index.html") == b"<h1>home</h1>"
    with tarfile.open(files["site.tar.gz"], "r:gz") as tarred:
        assert sorted(tarred.getnames()) == ["escape.txt", "img/logo.svg", "index.html"]


def converted_task(client: httpx.Client, source: Path, target: str) -> dict[str, Any]:
    """The ended task that converted ``source`` (imported as "rar") to ``target``."""
    job = run_job(
        client,
        {
            "rar": b64_import(source),
            target: {"operation": "convert", "input": "rar", "output_format": target},
        },
    )
    return task_named(job, target)


def test_rar_claiming_more_than_the_limit_fails_before_unpacking(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "rar", "zip")
    source = tmp_path / "bomb.rar"
    source.write_bytes(rar4([("a.bin", b"x"), ("b.bin", b"y")], declared_size=2**31))
    task = converted_task(client, source, "zip")
    assert task["status"] == "error"
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "unpacks to more than" in task["message"]


def test_a_file_that_is_not_rar_is_an_invalid_input(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "rar", "zip")
    source = tmp_path / "fake.rar"
    source.write_bytes(b"this is no archive at all\n")
    task = converted_task(client, source, "zip")
    assert task["status"] == "error"
    assert task["code"] == "INVALID_INPUT_FILE", task["message"]


def test_a_zip_named_rar_is_refused_naming_both(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("unar", "convert", "rar", "zip")
    source = tmp_path / "mislabelled.rar"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("a.txt", "a")
    task = converted_task(client, source, "tar")
    assert task["code"] == "INVALID_INPUT_FILE"
    # the service's signature check answers before the engine: the extension's format and the bytes' one
    assert "its extension says rar" in task["message"]
    assert "its bytes are a zip archive" in task["message"]
