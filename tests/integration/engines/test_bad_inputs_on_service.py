"""Corrupt inputs and unreachable URLs: the task says what went wrong, the job fails, the service goes on."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, run_job, task_named

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
