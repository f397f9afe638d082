"""convert of a zip into 7z and tar.xz through the service, folders inside kept."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
import py7zr
from engine_job_helpers import b64_import, download_all, run_job, task_named

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def test_zip_to_7z_and_tar_xz(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("archive", "convert", "zip", "7z")
    source = tmp_path / "site.zip"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("index.html", "<h1>home</h1>")
        archive.writestr("img/logo.svg", "<svg/>")
    job = run_job(
        client,
        {
            "zip": b64_import(source),
            "7z": {"operation": "convert", "input": "zip", "output_format": "7z"},
            "xz": {"operation": "convert", "input": "zip", "output_format": "tar.xz"},
            "export": {"operation": "export/url", "input": ["7z", "xz"]},
        },
    )
    assert task_named(job, "7z")["engine"] == "archive"
    files = download_all(job, tmp_path / "out")
    with py7zr.SevenZipFile(files["site.7z"]) as sevenzip:
        assert sorted(sevenzip.getnames()) == ["img/logo.svg", "index.html"]
    with tarfile.open(files["site.tar.xz"], "r:xz") as tarred:
        assert sorted(tarred.getnames()) == ["img/logo.svg", "index.html"]
        member = tarred.extractfile("index.html")
        assert member is not None
        assert member.read() == b"<h1>home</h1>"
