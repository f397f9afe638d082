"""The library entry point batch uses: run_pipeline with options, events and a stable run id."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from run_helpers import REMOTE_KEY, write_slow_pipeline

from mcv_pipelines.api import ApiClient, Settings
from mcv_pipelines.cli.main import main
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.run import RunOptions, find_job_by_tag, run_pipeline
from mcv_pipelines.service.server import LocalService


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def emit(self, kind: str, /, **data: Any) -> None:
        self.events.append((kind, data))


def _run(service: LocalService, path: Path, values: dict[str, Any], options: RunOptions) -> Any:
    result = check_pipeline(path, values, use_examples=False)
    assert result.ok, result.diagnostics
    assert result.pipeline is not None
    recorder = Recorder()

    async def go() -> Any:
        settings = Settings.build(api_key=REMOTE_KEY, base_url=service.base_url)
        async with ApiClient(settings) as client:
            outcome = await run_pipeline(client, result.pipeline, options, recorder)
            found = await find_job_by_tag(client, outcome.tag)
            return outcome, found

    outcome, found = asyncio.run(go())
    return outcome, found, recorder.events


def test_stable_run_id_and_outcome(isolated: Path, remote: LocalService) -> None:
    slow, text = write_slow_pipeline(isolated)
    options = RunOptions(run_id="row-0001", base_dir=isolated, out_dir=isolated / "rows" / "1")
    outcome, found, _ = _run(remote, slow, {"text": str(text)}, options)
    assert outcome.tag == "slow-text~row-0001"
    assert found is not None
    assert found.id == outcome.job_id
    assert outcome.ok
    assert [(f.task, f.path.name, f.size) for f in outcome.files] == [
        ("publish", "note.md", text.stat().st_size)
    ]
    assert outcome.uploaded_bytes == text.stat().st_size


def test_webhook_that_never_comes_falls_back_to_polling(isolated: Path, remote: LocalService) -> None:
    slow, text = write_slow_pipeline(isolated)
    options = RunOptions(
        wait="webhook",
        public_url="http://127.0.0.1:9/nowhere",  # the service cannot deliver there
        webhook_grace=0.5,
        max_poll_interval=0.5,
        base_dir=isolated,
    )
    outcome, _, events = _run(remote, slow, {"text": str(text), "sleep": 1}, options)
    assert outcome.ok
    notices = [data["message"] for kind, data in events if kind == "notice"]
    assert any("no webhook yet" in m for m in notices)


def test_remote_asked_for_but_not_configured(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slow, text = write_slow_pipeline(isolated)
    assert main(["run", str(slow), "-p", f"text={text}", "--service", "remote"]) == 2
    assert "no service configured: set MCV_API_KEY" in capsys.readouterr().err
