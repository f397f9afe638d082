"""Secrets planted around a task for the hostile-input tests of issue 37, and a search for them.

Outside every task: a text file and a picture in the host's /tmp and in /var/tmp, a text file in the
service's data directory, a picture another task uploaded (also in the data directory), a variable in
the service's environment (the embedded service is this process), and the machine's /etc/passwd.
A hostile file names them; ``Planted.found_in`` says which of them an output carries.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import run_job
from PIL import Image, PngImagePlugin

from mcv_pipelines.service.server import LocalService

__all__ = ["CANARY", "ENV_CANARY", "Planted", "all_bytes", "picture", "planted"]

CANARY = "mcv-canary-7f3a9c-never-in-an-output"
ENV_CANARY = "mcv-env-canary-51d0e2aa"
ENV_NAME = "AWS_SECRET_ACCESS_KEY"


@dataclass(frozen=True)
class Planted:
    """Where the secrets are; ``text`` and ``pictures`` by the place they were planted."""

    text: dict[str, Path]  # tmp, var-tmp, data: a text file holding CANARY
    pictures: dict[str, Path]  # tmp, var-tmp, upload: a PNG
    picture_bytes: dict[str, bytes]
    passwd_line: bytes  # a line of the machine's /etc/passwd that no seal's own passwd has

    def found_in(self, data: bytes) -> list[str]:
        """The names of the secrets ``data`` holds, empty when it holds none."""
        found = {f"picture:{name}" for name, raw in self.picture_bytes.items() if raw in data}
        checks = {"text": (CANARY.encode(), CANARY.encode()[::-1]), "env": (ENV_CANARY.encode(),),
                  "/etc/passwd": (self.passwd_line,)}  # fmt: skip
        found |= {name for name, needles in checks.items() if any(needle in data for needle in needles)}
        return sorted(found)


def picture(colour: tuple[int, int, int], marker: str) -> bytes:
    """A PNG carrying ``marker`` in a text chunk: found in an output however it was embedded whole."""
    buffer = io.BytesIO()
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", marker)
    Image.new("RGB", (48, 48), colour).save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


def all_bytes(path: Path) -> bytes:
    """The file and, where it is a zip (epub, docx, odt), every member uncompressed."""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            data += b"".join(archive.read(name) for name in archive.namelist())
    return data


def _passwd_line() -> bytes:
    lines = Path("/etc/passwd").read_bytes().splitlines()
    # not root's: a seal's own passwd names the running user (root, when the tests run as root)
    return next((line for line in lines if line.startswith(b"daemon:")), lines[0])


@contextmanager
def planted(
    service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
    """Plant the secrets for one test; removed after it."""
    monkeypatch.setenv(ENV_NAME, ENV_CANARY)
    places = {
        "tmp": Path(tempfile.mkdtemp(prefix="mcv-planted-", dir="/tmp")),
        "var-tmp": Path(tempfile.mkdtemp(prefix="mcv-planted-", dir="/var/tmp")),
        "data": Path(tempfile.mkdtemp(prefix="planted-", dir=service.data_dir)),
    }
    text, pictures, raw = {}, {}, {}
    for index, (name, place) in enumerate(places.items()):
        text[name] = place / "secret.txt"
        text[name].write_text(f"{CANARY} ({name})\n")
        if name != "data":
            raw[name] = picture((200, 10 * index, 190), f"{CANARY}-{name}")
            pictures[name] = place / "secret.png"
            pictures[name].write_bytes(raw[name])
    raw["upload"] = picture((12, 200, 34), f"other-key-upload-{CANARY[::-1]}")
    job = run_job(
        client,
        {"upload": {"operation": "import/base64", "file": base64.b64encode(raw["upload"]).decode(),
                    "filename": "their-photo.png"}},
    )  # fmt: skip
    assert job["status"] == "finished"
    stored = [p for p in service.data_dir.rglob("*.png") if p.is_file() and p.read_bytes() == raw["upload"]]
    assert stored, "the other task's upload is not in the data directory"
    pictures["upload"] = stored[0]
    assert os.environ[ENV_NAME] == ENV_CANARY
    try:
        yield Planted(text, pictures, raw, _passwd_line())
    finally:
        for place in places.values():
            shutil.rmtree(place, ignore_errors=True)
