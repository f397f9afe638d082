"""The pure parts of a run: download targets, failures, events, summary, the data-dir key and lock."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from mcv_pipelines.api.models import Job
from mcv_pipelines.diagnostics import Location
from mcv_pipelines.errors import UsageError
from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask
from mcv_pipelines.redact import register_secret
from mcv_pipelines.run.downloads import OverwriteRefused, _targets, check_known_targets, export_dirs
from mcv_pipelines.run.embedded import stored_api_key
from mcv_pipelines.run.events import JsonLinesEvents
from mcv_pipelines.run.model import DownloadedFile, RunOptions, RunOutcome, TaskFailure
from mcv_pipelines.run.runner import failures_of
from mcv_pipelines.run.summary import summary_text
from mcv_pipelines.run.uploads import plan_uploads
from mcv_pipelines.service.state.lock import DataDirBusy, DataDirLock


def _task(name: str, operation: str, **extra: Any) -> RenderedTask:
    body = {"operation": operation, **{k: v for k, v in extra.items() if k not in ("inputs", "line")}}
    inputs = tuple((n, Location("p.yaml", 1, 1)) for n in extra.get("inputs", ()))
    return RenderedTask(
        name=name,
        operation=operation,
        body=MappingProxyType(body),
        upload_from=extra.get("upload_from"),
        download_to=extra.get("download_to"),
        group=name,
        location=Location("p.yaml", extra.get("line", 1), 3),
        inputs=inputs,
    )


def _pipeline(*tasks: RenderedTask) -> RenderedPipeline:
    return RenderedPipeline(path="p.yaml", name="p", tasks={t.name: t for t in tasks})


def test_download_dirs_resolve_like_a_shell(tmp_path: Path) -> None:
    pipeline = _pipeline(
        _task("a", "export/url", download_to="out/a/"),
        _task("b", "export/url"),
        _task("c", "export/url", download_to="/abs/c"),
    )
    dirs = export_dirs(pipeline, RunOptions(base_dir=tmp_path))
    assert dirs == {"a": tmp_path / "out" / "a", "b": tmp_path, "c": Path("/abs/c")}
    assert set(export_dirs(pipeline, RunOptions(base_dir=tmp_path, out_dir=Path("o"))).values()) == {
        tmp_path / "o"
    }


def test_known_names_are_checked_before_submitting(tmp_path: Path) -> None:
    pipeline = _pipeline(
        _task("conv", "convert", filename="../../evil.png"),
        _task("pub", "export/url", inputs=("conv",), download_to="out"),
    )
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "evil.png").write_text("mine")  # the name is sanitised to stay inside out/
    with pytest.raises(OverwriteRefused, match=r"evil\.png already exists; pass --overwrite"):
        check_known_targets(pipeline, RunOptions(base_dir=tmp_path))
    assert check_known_targets(pipeline, RunOptions(base_dir=tmp_path, overwrite=True)) == [
        tmp_path / "out" / "evil.png"
    ]


def _job(files: list[dict[str, Any]], status: str = "finished") -> Job:
    task = {
        "id": "t1",
        "name": "pub",
        "operation": "export/url",
        "status": status,
        "result": {"files": files},
    }
    return Job.from_json({"id": "j", "status": status, "tasks": [task]})


def test_service_names_are_sanitised_and_collisions_refused(tmp_path: Path) -> None:
    job = _job(
        [{"filename": "/etc/passwd", "url": "http://s/1"}, {"filename": "a\x07b.txt", "url": "http://s/2"}]
    )
    targets = _targets(job, {"pub": tmp_path}, overwrite=False)
    assert [t.path for t in targets] == [tmp_path / "passwd", tmp_path / "ab.txt"]
    twice = _job([{"filename": "x.png", "url": "http://s/1"}, {"filename": "sub/x.png", "url": "http://s/2"}])
    with pytest.raises(UsageError, match="two result files"):
        _targets(twice, {"pub": tmp_path}, overwrite=False)


def test_missing_upload_file_names_the_task(tmp_path: Path) -> None:
    pipeline = _pipeline(_task("in", "import/upload", upload_from="nope.jpg", line=7))
    with pytest.raises(UsageError, match=r"p.yaml:7:3: task in: upload_from: nope.jpg is not a file"):
        plan_uploads(pipeline, tmp_path)


def test_upload_task_without_a_file_is_refused(tmp_path: Path) -> None:
    pipeline = _pipeline(_task("in", "import/upload", line=4))
    with pytest.raises(UsageError, match=r"p.yaml:4:3: task in is an import/upload without upload_from"):
        plan_uploads(pipeline, tmp_path)


def test_failures_list_causes_first_with_locations() -> None:
    pipeline = _pipeline(_task("conv", "convert", line=9), _task("pub", "export/url", line=14))
    job = Job.from_json(
        {
            "id": "j",
            "status": "error",
            "tasks": [
                {
                    "id": "1",
                    "name": "pub",
                    "operation": "export/url",
                    "status": "error",
                    "code": "INPUT_TASK_FAILED",
                    "message": "Input task has failed",
                },
                {
                    "id": "2",
                    "name": "conv",
                    "operation": "convert",
                    "status": "error",
                    "code": "INVALID_FILE",
                    "message": "cannot identify image",
                },
            ],
        }
    )
    failures = failures_of(job, pipeline)
    assert [f.describe() for f in failures] == [
        "p.yaml:9:3: task conv failed INVALID_FILE: cannot identify image",
        "p.yaml:14:3: task pub failed INPUT_TASK_FAILED: Input task has failed",
    ]


def test_events_are_json_lines_with_secrets_masked() -> None:
    secret = "sk-unit-events-secret-77"
    register_secret(secret)
    stream = io.StringIO()
    sink = JsonLinesEvents(stream=stream)
    sink.emit("submitted", job_id="j1", tag="t")
    sink.emit("upload", task="in", done=10, total=20)  # byte progress is for live views only
    sink.emit("failed", message=f"key {secret} rejected")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [r["event"] for r in records] == ["submitted", "failed"]
    assert records[1]["message"] == "key *** rejected"
    assert records[0]["time"].endswith("+00:00")


def test_summary_names_files_sizes_credits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = RunOutcome(
        job_id="j1",
        tag="t~1",
        status="error",
        failures=(TaskFailure("conv", "X", "bad", Location("p.yaml", 3, 3)),),
        files=(DownloadedFile("pub", tmp_path / "out" / "a.png", 2048),),
        credits=4,
        elapsed=1.25,
    )
    text = summary_text(outcome)
    assert text.splitlines()[0] == "job j1 error in 1.2 s (tag t~1; tasks: none; credits: 4)"
    assert "1 task(s) failed" in text
    assert "out/a.png" in text
    assert "2.0 KiB" in text


def test_data_dir_key_is_private_and_stable(tmp_path: Path) -> None:
    first = stored_api_key(tmp_path)
    assert stored_api_key(tmp_path) == first
    assert (tmp_path / "api-key").stat().st_mode & 0o777 == 0o600


def test_one_process_per_data_dir(tmp_path: Path) -> None:
    with DataDirLock(tmp_path), pytest.raises(DataDirBusy, match="in use by another mcv process"):
        DataDirLock(tmp_path).acquire()
    with DataDirLock(tmp_path):  # released: usable again
        pass
