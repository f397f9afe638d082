"""Engines see only their task (issue 37): a document that links or includes a file from outside its
task gets none of it into the output, whether the file is a secret planted beside the service (in
/var/tmp), the machine's /etc/passwd, or a picture another task uploaded into the data directory.

Each case converts on the real service over loopback, under bubblewrap, and compares the output's
bytes with the planted files' bytes."""

from __future__ import annotations

import base64
import io
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image, PngImagePlugin

from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.server import LocalService
from office_samples import include_picture_rtf, linked_picture_docx

RequireEngine = Callable[..., Engine]
CANARY = b"mcv-canary-7f3a9c-never-in-an-output"


@dataclass(frozen=True)
class Secrets:
    canary: Path  # a picture beside the service, outside every task
    upload: Path  # a picture another task uploaded, in the data directory
    upload_bytes: bytes
    passwd_root: bytes  # the machine's own /etc/passwd line for root

    def found_in(self, data: bytes) -> list[str]:
        secrets = (("canary", CANARY), ("canary", self.canary.read_bytes()), ("upload", self.upload_bytes))
        found = sorted({name for name, secret in secrets if secret in data})
        return found + (["/etc/passwd"] if self.passwd_root in data else [])


def _picture(colour: tuple[int, int, int], marker: bytes) -> bytes:
    """A PNG carrying ``marker`` in a text chunk: found in an output however it was embedded whole."""
    buffer = io.BytesIO()
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", marker.decode())
    Image.new("RGB", (64, 64), colour).save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


@pytest.fixture
def sealed(monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]) -> None:
    require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "bwrap")


@pytest.fixture
def secrets(sealed: None, service: LocalService, client: httpx.Client) -> Iterator[Secrets]:
    # Outside the host's /tmp, which every seal has long replaced by a private one.
    beside = Path(tempfile.mkdtemp(prefix="mcv-beside-the-service-", dir="/var/tmp"))
    canary = beside / "canary.png"
    canary.write_bytes(_picture((200, 10, 190), CANARY))
    picture = _picture((12, 200, 34), b"other-key-upload-" + CANARY[::-1])
    job = run_job(
        client,
        {"upload": {"operation": "import/base64", "file": base64.b64encode(picture).decode(),
                    "filename": "their-photo.png"}},
    )  # fmt: skip
    assert job["status"] == "finished"
    stored = [p for p in service.data_dir.rglob("*") if p.is_file() and p.read_bytes() == picture]
    assert stored, "the other task's upload is not in the data directory"
    root = next(line for line in Path("/etc/passwd").read_bytes().splitlines() if line.startswith(b"root:"))
    try:
        yield Secrets(canary, stored[0], picture, root)
    finally:
        shutil.rmtree(beside, ignore_errors=True)


def _targets(secrets: Secrets) -> dict[str, str]:
    return {
        "canary": secrets.canary.as_uri(),
        "passwd": "file:///etc/passwd",
        "upload": secrets.upload.as_uri(),
    }


def _all_bytes(path: Path) -> bytes:
    """The file and, where it is a zip (epub, docx, odt), every member uncompressed."""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            data += b"".join(archive.read(name) for name in archive.namelist())
    return data


@pytest.mark.parametrize("target", ["canary", "passwd", "upload"])
def test_calibre_takes_no_linked_picture_from_outside_the_task(
    target: str, secrets: Secrets, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("calibre", "convert", "docx", "epub")
    docx = linked_picture_docx(tmp_path / "linked.docx", _targets(secrets)[target])
    job = run_job(
        client,
        {
            "docx": b64_import(docx),
            "epub": {"operation": "convert", "input": "docx", "output_format": "epub", "engine": "calibre"},
            "export": {"operation": "export/url", "input": ["epub"]},
        },
    )
    assert task_named(job, "epub")["engine"] == "calibre"
    epub = download_all(job, tmp_path / "out")["linked.epub"]
    assert secrets.found_in(_all_bytes(epub)) == []


def _paths(secrets: Secrets) -> dict[str, str]:
    return {"canary": str(secrets.canary), "upload": str(secrets.upload)}


@pytest.mark.parametrize("target", ["canary", "upload"])
def test_libreoffice_includes_no_picture_from_outside_the_task(
    target: str, secrets: Secrets, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """The warm pool's soffice outlives tasks: it sees only its exchange directory, not the machine."""
    require_engine("libreoffice", "convert", "rtf", "odt")
    rtf = include_picture_rtf(tmp_path / "included.rtf", _paths(secrets)[target])
    job = run_job(
        client,
        {
            "rtf": b64_import(rtf),
            **{
                fmt: {"operation": "convert", "input": "rtf", "output_format": fmt, "engine": "libreoffice"}
                for fmt in ("docx", "odt")
            },
            "export": {"operation": "export/url", "input": ["docx", "odt"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["included.docx", "included.odt"]
    for path in files.values():
        assert secrets.found_in(_all_bytes(path)) == [], path.name
