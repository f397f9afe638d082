"""The warm Chromium under the landlock seal (issue 37): Landlock keeps it to the system's trees and its
profile where namespaces are refused, and it still converts.

An uploaded HTML page whose frames and pictures name files outside the task (file:///etc/passwd, the
planted secrets of planted_secrets.py) converts to pdf and png without them: the request guard refuses
file: before Chromium reads anything, so this holds with or without Landlock; that the browser's
processes carry the seal (no new privileges, no capability) is checked on them directly.

The module has a service of its own, so its browser is started under this seal.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from own_processes import named, seal_status
from planted_secrets import Planted, all_bytes, planted
from pypdf import PdfReader

from engine_needs import unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset
from mcv_pipelines.service.server import LocalService

RequireEngine = Callable[..., Engine]
_BROWSER_NAMES = ("chromium", "chrome", "headless_shell", "chromium-headle")  # comm: 15 characters


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(seal.FORCE_VARIABLE, "landlock")  # read when the browser starts
        with LocalService(data_dir=tmp_path_factory.mktemp("data"), settings={"rate_limit": 10_000}) as svc:
            yield svc


@pytest.fixture
def secrets(
    service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
    with planted(service, client, monkeypatch) as found:
        yield found


def _page(secrets: Planted) -> str:
    files = ["/etc/passwd", *map(str, secrets.text.values()), *map(str, secrets.pictures.values())]
    frames = "".join(f'<iframe src="file://{path}"></iframe>' for path in files)
    pictures = "".join(f'<img src="file://{path}">' for path in secrets.pictures.values())
    return f"<html><body><p>Visible text of the page.</p>{frames}{pictures}</body></html>"


def test_a_page_naming_files_outside_converts_without_them(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("chromium", "convert", "html", "pdf")
    page = tmp_path / "page.html"
    page.write_text(_page(secrets))
    formats = ("pdf", "png")
    job = run_job(
        client,
        {
            "in": b64_import(page),
            **{
                fmt: {"operation": "convert", "input": "in", "output_format": fmt, "engine": "chromium"}
                for fmt in formats
            },
            "export": {"operation": "export/url", "input": list(formats)},
        },
    )
    for fmt in formats:
        assert task_named(job, fmt)["status"] == "finished", json.dumps(task_named(job, fmt))
    files = download_all(job, tmp_path / "out")
    pdf = files["page.pdf"].read_bytes()
    text = "".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "Visible text of the page." in text
    for path in files.values():
        assert secrets.found_in(all_bytes(path) + text.encode()) == [], path.name
    _assert_browser_sealed()


def _assert_browser_sealed() -> None:
    """Every browser process this test process started: no new privileges, no capability."""
    browsers = named(_BROWSER_NAMES)
    assert browsers, "no browser process is running for this service"
    for pid in browsers:
        sealed = seal_status(pid, ("NoNewPrivs", "CapEff"))
        assert sealed == {"NoNewPrivs": "1", "CapEff": "0000000000000000"}, pid
