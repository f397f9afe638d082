"""The service commands: thin wiring over the client, one-line errors, the key never printed."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcv_pipelines.api import ApiClient, RetryPolicy, Settings
from mcv_pipelines.cli import connection, main

KEY = "sk-cli-test-key-0987654321"
Handler = Callable[[httpx.Request], httpx.Response]


async def _no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[[Handler], list[httpx.Request]]:
    """Point the commands at a mock service; returns a function that installs the handler."""
    for var in ("MCV_BASE_URL", "MCV_SYNC_URL", "MCV_REGION", "MCV_SANDBOX", "MCV_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MCV_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("MCV_API_KEY", KEY)
    monkeypatch.setenv("MCV_BASE_URL", "http://127.0.0.1:9999")
    seen: list[httpx.Request] = []

    def install(handler: Handler) -> list[httpx.Request]:
        def recording(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return handler(request)

        def factory(settings: Settings) -> ApiClient:
            retry = RetryPolicy(sleep=_no_sleep, attempts=2)
            return ApiClient(settings, transport=httpx.MockTransport(recording), retry=retry)

        monkeypatch.setattr(connection, "CLIENT_FACTORY", factory)
        return seen

    return install


def _job(status: str = "finished") -> dict[str, Any]:
    return {
        "id": "j1",
        "status": status,
        "tag": "row-1",
        "tasks": [
            {"id": "t1", "name": "in", "operation": "import/url", "status": "finished"},
            {
                "id": "t2",
                "name": "web",
                "operation": "convert",
                "status": status,
                "code": "ENGINE_ERROR" if status == "error" else None,
                "message": "broken input" if status == "error" else None,
            },
            {
                "id": "t3",
                "name": "out",
                "operation": "export/url",
                "status": "finished",
                "result": {"files": [{"filename": "../a.webp", "url": "http://127.0.0.1:9999/files/a.webp"}]},
            },
        ],
    }


def test_no_service_configured_uses_the_embedded_service(monkeypatch, tmp_path, capsys) -> None:
    for var in ("MCV_API_KEY", "MCV_BASE_URL", "MCV_SYNC_URL", "MCV_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MCV_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("MCV_DATA_DIR", str(tmp_path / "data"))
    assert main.main(["jobs", "list", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    key_file = tmp_path / "data" / "api-key"
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_jobs_show_text_and_json(service, capsys) -> None:
    seen = service(lambda r: httpx.Response(200, json={"data": _job()}))
    assert main.main(["jobs", "show", "j1"]) == 0
    out = capsys.readouterr().out
    assert "job j1  finished  tag=row-1" in out
    assert "export: ../a.webp  http://127.0.0.1:9999/files/a.webp" in out
    assert main.main(["jobs", "show", "j1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "j1"
    assert seen[0].url.path == "/v2/jobs/j1"


def test_jobs_list_filters_and_limit(service, capsys) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        jobs = [{"id": f"j{i}", "status": "finished", "tag": "row-1"} for i in range(5)]
        return httpx.Response(200, json={"data": jobs, "links": {"next": None}})

    seen = service(handler)
    assert main.main(["jobs", "list", "--tag", "row-1", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["j0", "j1", "j2"]
    assert seen[0].url.params["filter[tag]"] == "row-1"


def test_jobs_wait_downloads_exports(service, capsys, tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/files/"):
            assert "authorization" not in request.headers
            return httpx.Response(200, content=b"WEBP")
        assert request.url.path == "/sync/v2/jobs/j1"
        return httpx.Response(200, json={"data": _job()})

    service(handler)
    out_dir = tmp_path / "out"
    assert main.main(["jobs", "wait", "j1", "--download", str(out_dir), "--timeout", "60"]) == 0
    assert (out_dir / "a.webp").read_bytes() == b"WEBP"
    assert f"downloaded {out_dir / 'a.webp'}" in capsys.readouterr().out


def test_jobs_wait_on_a_failed_job_exits_1(service, capsys) -> None:
    service(lambda r: httpx.Response(200, json={"data": _job("error")}))
    assert main.main(["jobs", "wait", "j1"]) == 1
    assert "ENGINE_ERROR: broken input" in capsys.readouterr().out


def test_jobs_delete(service, capsys) -> None:
    seen = service(lambda r: httpx.Response(204))
    assert main.main(["jobs", "delete", "j1"]) == 0
    assert (seen[0].method, seen[0].url.path) == ("DELETE", "/v2/jobs/j1")
    assert "deleted job j1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "method", "path"),
    [
        (["tasks", "show", "t1", "--include", "payload"], "GET", "/v2/tasks/t1"),
        (["tasks", "cancel", "t1"], "POST", "/v2/tasks/t1/cancel"),
        (["tasks", "retry", "t1"], "POST", "/v2/tasks/t1/retry"),
    ],
)
def test_task_commands(service, capsys, argv, method, path) -> None:
    task = {"id": "t1", "operation": "convert", "status": "error", "code": "X", "message": "bad"}
    seen = service(lambda r: httpx.Response(200, json={"data": task}))
    assert main.main(argv) == 0
    assert (seen[0].method, seen[0].url.path) == (method, path)
    assert "task t1  convert  error" in capsys.readouterr().out


def test_tasks_list_and_delete(service, capsys) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(
            200,
            json={
                "data": [{"id": "t1", "operation": "convert", "status": "finished"}],
                "links": {"next": None},
            },
        )

    seen = service(handler)
    assert main.main(["tasks", "list", "--job-id", "j1", "--status", "finished", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == "t1"
    assert seen[0].url.params["filter[job_id]"] == "j1"
    assert main.main(["tasks", "delete", "t1"]) == 0


def test_webhooks_commands(service, capsys) -> None:
    hook = {"id": 4, "url": "https://e.org/h", "events": ["job.finished"], "signing_secret": "whsec-1234567"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            assert json.loads(request.content) == {"url": "https://e.org/h", "events": ["job.failed"]}
            return httpx.Response(201, json={"data": hook})
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json={"data": [hook], "links": {"next": None}})

    service(handler)
    assert main.main(["webhooks", "create", "https://e.org/h", "--event", "job.failed"]) == 0
    assert "signing secret: whsec-1234567" in capsys.readouterr().out  # shown once, for the receiver
    assert main.main(["webhooks", "list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["id"] == 4
    assert "signing_secret" not in listed[0]
    assert main.main(["webhooks", "delete", "4"]) == 0


def test_me_and_operations(service, capsys) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/users/me":
            return httpx.Response(200, json={"data": {"id": 1, "username": "ann", "credits": 42}})
        op = {
            "operation": "convert",
            "input_format": "jpg",
            "output_format": "webp",
            "engine": "pillow",
            "credits": 1,
            "options": [{"name": "quality", "type": "integer"}],
        }
        return httpx.Response(200, json={"data": [op], "links": {"next": None}})

    seen = service(handler)
    assert main.main(["me"]) == 0
    assert "ann" in capsys.readouterr().out
    assert main.main(["operations", "--input-format", "jpg"]) == 0
    out = capsys.readouterr().out
    assert "convert" in out
    assert "options: quality" in out
    assert seen[-1].url.params["filter[input_format]"] == "jpg"


@pytest.mark.parametrize(("status", "code"), [(401, 3), (403, 3), (404, 3), (422, 2), (402, 3)])
def test_service_errors_are_one_line_with_exit_code(service, capsys, status, code) -> None:
    service(lambda r: httpx.Response(status, json={"message": "No.", "code": "X", "errors": {"f": ["bad"]}}))
    assert main.main(["jobs", "show", "j1"]) == code
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mcv: error: GET /v2/jobs/j1: HTTP {status} X: No.")
    assert len(err.splitlines()) == 1


def test_api_key_never_printed_or_logged(service, capsys, caplog) -> None:
    caplog.set_level(logging.DEBUG)

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        if request.url.path == "/v2/users/me":
            return httpx.Response(401, json={"message": f"key {KEY} revoked", "code": "UNAUTHENTICATED"})
        if request.url.path == "/v2/jobs/j1":
            return httpx.Response(200, json={"data": {**_job(), "tag": KEY}})
        return httpx.Response(200, text=f"<html>{KEY}</html>", headers={"Content-Type": "text/html"})

    service(handler)
    runs = [
        ["me"],
        ["jobs", "show", "j1"],
        ["jobs", "show", "j1", "--format", "json"],
        ["tasks", "show", "t9"],
        ["me", "--api-key", KEY],
        ["operations", "--format", "json"],
    ]
    codes = [main.main(argv) for argv in runs]
    captured = capsys.readouterr()
    assert codes == [3, 0, 0, 3, 3, 3]
    everything = captured.out + captured.err + caplog.text
    assert KEY not in everything
    assert "***" in everything
    assert "--api-key is visible" in captured.err
