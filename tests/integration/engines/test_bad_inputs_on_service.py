"""Corrupt inputs and unreachable URLs: the task says what went wrong, the job fails, the service goes on."""

from __future__ import annotations

import socket
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, run_job, task_named
from PIL import Image

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def assert_failed_clearly(client: httpx.Client, tasks: dict[str, object], failing: str) -> dict[str, object]:
    job = run_job(client, {**tasks, "export": {"operation": "export/url", "input": failing}})
    task = task_named(job, failing)
    assert job["status"] == "error"
    assert task["status"] == "error"
    assert task["code"], task
    assert task["code"].isupper(), task
    message = task["message"]
    assert message, task
    assert "Traceback" not in message, message
    assert len(message) < 600, message
    assert "/tasks/" not in message, message  # no directory of the service
    export = task_named(job, "export")
    assert export["status"] == "error"
    assert export["code"] == "INPUT_TASK_FAILED"
    assert client.get("/v2/users/me").status_code == 200  # still serving
    return task


def test_truncated_mp4(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(clip.read_bytes()[: clip.stat().st_size // 3])
    task = assert_failed_clearly(
        client,
        {
            "clip": b64_import(broken),
            "webm": {"operation": "convert", "input": "clip", "output_format": "webm"},
        },
        "webm",
    )
    assert "broken.mp4" in str(task["message"]) or "input" in str(task["message"]).lower(), task


def test_garbage_docx(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "docx", "pdf")
    garbage = tmp_path / "report.docx"
    garbage.write_bytes(b"PK\x03\x04 this is not really a word document" * 20)
    assert_failed_clearly(
        client,
        {"doc": b64_import(garbage), "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"}},
        "pdf",
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_url_on_a_closed_port_for_import_and_capture(
    require_engine: RequireEngine, client: httpx.Client
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/nothing.html"
    task = assert_failed_clearly(client, {"fetch": {"operation": "import/url", "url": url}}, "fetch")
    assert "127.0.0.1" in str(task["message"]), task
    require_engine("chromium")
    task = assert_failed_clearly(
        client, {"shot": {"operation": "capture-website", "url": url, "output_format": "png"}}, "shot"
    )
    assert "127.0.0.1" in str(task["message"]) or "reach" in str(task["message"]).lower(), task


@pytest.mark.parametrize("engine", ["ghostscript", "qpdf", "pypdf"])
def test_damaged_pdf_is_refused_by_every_optimizer(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, engine: str
) -> None:
    require_engine(engine)
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(b"%PDF-1.4 nothing of a document follows" * 10)
    optimize = {"operation": "optimize", "input": "pdf", "engine": engine}
    task = assert_failed_clearly(client, {"pdf": b64_import(damaged), "small": optimize}, "small")
    assert "damaged.pdf" in str(task["message"]), task


def _png(path: Path) -> Path:
    Image.new("RGB", (8, 8), "teal").save(path, "PNG")
    return path


@pytest.mark.parametrize(
    ("name", "content", "target", "says", "looks_like"),
    [
        ("photo.pdf", "png", "png", "its extension says pdf (a PDF document)", "its bytes are a PNG image"),
        ("bundle.png", "zip", "jpg", "its extension says png (a PNG image)", "its bytes are a zip archive"),
        ("notes.docx", "text", "pdf", "its extension says docx (a zip archive", "its bytes are text"),
    ],
)
def test_a_mislabelled_file_fails_before_any_engine_naming_both(
    client: httpx.Client, tmp_path: Path, name: str, content: str, target: str, says: str, looks_like: str
) -> None:
    # No engine needed: the file is refused before one is picked (so also where none would run).
    path = tmp_path / name
    if content == "png":
        _png(path)
    elif content == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("a.txt", "hello")
    else:
        path.write_text("# Notes\n\nJust words, no document.\n")
    task = assert_failed_clearly(
        client,
        {"in": b64_import(path), "out": {"operation": "convert", "input": "in", "output_format": target}},
        "out",
    )
    assert task["code"] == "INVALID_INPUT_FILE"
    message = str(task["message"])
    assert message.startswith(f"{name} is not a {name.rsplit('.', 1)[1]} file"), message
    assert says in message
    assert looks_like in message


def test_input_format_is_checked_too_and_a_true_one_converts(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pillow", "convert", "png", "jpg")
    path = _png(tmp_path / "upload.bin")
    task = assert_failed_clearly(
        client,
        {"in": b64_import(path),
         "out": {"operation": "convert", "input": "in", "input_format": "jpg", "output_format": "png"}},
        "out",
    )  # fmt: skip
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "input_format says jpg (a JPEG image), but its bytes are a PNG image" in str(task["message"])
    job = run_job(
        client,
        {"in": b64_import(path),
         "out": {"operation": "convert", "input": "in", "input_format": "png", "output_format": "jpg"},
         "export": {"operation": "export/url", "input": "out"}},
    )  # fmt: skip
    assert job["status"] == "finished", job


# Bytes that are not the file they claim to be, for the formats read in-process (no program to fail
# for them): each fails with a code the user can act on, never INTERNAL_ERROR, and none "converts".
_NOT_WHAT_THEY_CLAIM = [
    ("cbz", "pdf", "comics", b"PK\x03\x04" + bytes(range(256)) * 2),  # a zip's magic, then no zip
    ("cbt", "cbz", "comics", b"PK\x03\x04" + bytes(range(256)) * 2),
    ("lz4", "zip", "archive", b"not an lz4 frame at all" * 10),
    ("tar.lz4", "zip", "archive", b"\x04\x22\x4d\x18" + b"\x00" * 40),  # lz4's magic, a broken frame
    ("zst", "zip", "archive", b"not a zstd frame" * 10),
    ("eml", "html", "mail", bytes(range(256)) * 4),
    ("properties", "json", "data", b"key=\x00\x01\x02" * 50),
    ("ini", "json", "data", b"[a]\nkey=\x00\x01\x02\n"),
]


@pytest.mark.parametrize(
    ("source", "target", "engine", "data"), _NOT_WHAT_THEY_CLAIM, ids=[c[0] for c in _NOT_WHAT_THEY_CLAIM]
)
def test_junk_in_an_in_process_format_fails_in_words(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path,
    source: str, target: str, engine: str, data: bytes,
) -> None:  # fmt: skip
    require_engine(engine, "convert", source, target)
    junk = tmp_path / f"junk.{source}"
    junk.write_bytes(data)
    task = assert_failed_clearly(
        client,
        {
            "junk": b64_import(junk),
            "out": {"operation": "convert", "input": "junk", "input_format": source, "output_format": target},
        },
        "out",
    )
    assert task["code"] == "INVALID_INPUT_FILE", task
