"""The console's server side over loopback: its pages and CSP, the checker endpoint (the same
checker as `mcv validate`), the change stream (Server-Sent Events) and the key's scopes."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.redact import redact
from mcv_pipelines.service.server import LocalService

ROOT = Path(__file__).resolve().parents[3]
BROKEN = """version: 1
tasks:
  original:
    operation: import/upload
  web:
    operation: convert
    input: orignal
    output_format: webp
    widht: 320
  publish:
    operation: export/url
    input: web
"""


@pytest.fixture(scope="module")
def service() -> Iterator[LocalService]:
    with LocalService() as svc:
        yield svc


def client(service: LocalService, key: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key or service.api_key}"}
    return httpx.Client(base_url=service.base_url, headers=headers, timeout=20)


def test_console_page_has_a_csp_without_inline_scripts(service: LocalService) -> None:
    page = httpx.get(f"{service.base_url}/console/")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page.text, flags=re.S)
    assert scripts, "the page loads its scripts"
    assert all(not body.strip() for body in scripts), "no inline script"
    assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", page.text))
    script = httpx.get(f"{service.base_url}/console/static/app.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert httpx.get(f"{service.base_url}/console", follow_redirects=True).url.path == "/console/"


def test_console_files_outside_the_static_folder_are_not_served(service: LocalService) -> None:
    for name in ("..%2Fchecking.py", "checking.py", "nope.js", "..%2F..%2Fconfig.py"):
        path = f"/console/static/{name}"
        assert httpx.get(service.base_url + path).status_code == 404, path


def test_check_finds_what_mcv_validate_finds_at_the_same_line_and_column(
    service: LocalService, tmp_path: Path
) -> None:
    with client(service) as c:
        answer = c.post("/console/api/check", json={"text": BROKEN, "name": "p.yaml"}).json()
    file = tmp_path / "p.yaml"
    file.write_text(BROKEN)
    expected = check_pipeline(file, {}).diagnostics
    got = {(d["rule"], d["line"], d["column"]) for d in answer["diagnostics"]}
    assert got == {(d.rule, d.location.line, d.location.column) for d in expected if d.location}
    assert ("graph-dangling-input", 7, 12) in got  # `input: orignal` points at the value
    assert answer["ok"] is False


def test_check_of_a_sound_pipeline_gives_body_graph_params_and_uploads(service: LocalService) -> None:
    text = (ROOT / "pipelines" / "thumbnails.yaml").read_text()
    with client(service) as c:
        answer = c.post("/console/api/check", json={"text": text}).json()
    assert answer["ok"], answer["diagnostics"]
    assert set(answer["body"]["tasks"]) == {n["name"] for n in answer["graph"]["nodes"]}
    assert all("upload_from" not in task for task in answer["body"]["tasks"].values())
    for source, target in answer["graph"]["edges"]:
        assert source in answer["body"]["tasks"]
        assert target in answer["body"]["tasks"]
    assert answer["uploads"], "the upload task and its file"
    assert any(p["file"] for p in answer["params"]), "a param feeds upload_from: a file picker"


ENV_TAG = """version: 1
params:
  photo: {type: string, example: a.jpg}
job:
  tag: "{{ env('CONSOLE_TEST_SECRET') }}"
tasks:
  original:
    operation: import/upload
    upload_from: "{{ params.photo }}"
  publish:
    operation: export/url
    input: original
"""


def test_run_check_needs_every_param_and_never_reads_the_servers_environment(
    service: LocalService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONSOLE_TEST_SECRET", "s3cr3t-value")
    with client(service) as c:

        def rules(**request: Any) -> set[str]:
            answer = c.post("/console/api/check", json={"text": ENV_TAG, **request}).json()
            assert "s3cr3t-value" not in json.dumps(answer)
            return {d["rule"] for d in answer["diagnostics"]}

        assert rules(run=True) == {"param-missing"}  # a run takes no example for a value
        assert rules(run=True, params={"photo": "a.jpg"}) == {"template-env"}  # not the server's env
        assert rules() == set()  # checking as validate does: a stand-in for the variable


def test_console_endpoints_need_a_key(service: LocalService) -> None:
    assert httpx.post(f"{service.base_url}/console/api/check", json={"text": BROKEN}).status_code == 401
    assert httpx.get(f"{service.base_url}/console/api/events").status_code == 401
    assert httpx.get(f"{service.base_url}/console/api/key").status_code == 401
    with client(service) as c:
        assert c.post("/console/api/check", json={"text": 3}).status_code == 422


def test_key_endpoint_tells_the_keys_own_scopes(service: LocalService) -> None:
    reader = service.add_api_key(["task.read", "user.read"])
    with client(service, reader) as c:
        assert c.get("/console/api/key").json()["data"]["scopes"] == ["user.read", "task.read"]
        assert c.post("/v2/jobs", json={"tasks": {}}).status_code == 403  # the console adds no way around


def _events(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    name = "message"
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line[5:])


def _job(c: httpx.Client) -> str:
    answer = c.post("/v2/jobs", json={"tasks": {"in": {"operation": "import/upload"}}})
    assert answer.status_code == 201
    return str(answer.json()["data"]["id"])


def test_event_stream_carries_only_the_keys_own_changes(service: LocalService) -> None:
    other = service.add_api_key()
    with (
        client(service) as mine,
        client(service, other) as theirs,
        theirs.stream("GET", "/console/api/events") as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        events = _events(response)
        assert next(events)[0] == "ready"
        _job(mine)  # published before theirs: were it leaked, it would come first
        their_job = _job(theirs)
        name, data = next(events)
        assert (name, data["kind"], data["id"]) == ("change", "job", their_job)


def test_event_stream_of_one_job_follows_its_tasks(service: LocalService) -> None:
    with client(service) as c:
        job_id = _job(c)
        task = c.get(f"/v2/jobs/{job_id}").json()["data"]["tasks"][0]
        with c.stream("GET", f"/console/api/events?job={job_id}") as response:
            events = _events(response)
            assert next(events) == ("ready", {"job": job_id})
            assert c.post(f"/v2/tasks/{task['id']}/cancel").status_code == 200
            seen = [next(events)[1] for _ in range(2)]
        assert {(e["kind"], e["status"]) for e in seen} == {("task", "error"), ("job", "error")}
        assert c.get("/console/api/events?job=no-such-job").status_code == 404


def test_stopping_the_service_ends_open_event_streams_cleanly(caplog: pytest.LogCaptureFixture) -> None:
    service = LocalService(logging_configured=True).start()  # uvicorn's records reach caplog
    ready, ended = threading.Event(), threading.Event()
    failures: list[Exception] = []

    def read() -> None:
        try:
            with client(service) as c, c.stream("GET", "/console/api/events") as response:
                for line in response.iter_lines():
                    if line.startswith("event: ready"):
                        ready.set()
        except httpx.HTTPError as exc:
            failures.append(exc)
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(10)
    with caplog.at_level(logging.WARNING):
        service.stop()
    assert ended.wait(10)
    assert failures == []  # the stream ended as a stream does, not cut off mid-answer
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_posted_secret_param_does_not_change_what_the_service_masks(service: LocalService) -> None:
    declared = "  photo: {type: string, example: a.jpg}\n"
    token = "  token: {type: string, secret: true, default: console-tok-1}\n"
    text = ENV_TAG.replace(declared, declared + token)
    with client(service) as c:
        posted = {"text": text, "params": {"token": "console-tok-2"}}
        answer = c.post("/console/api/check", json=posted).json()
    assert answer["ok"], answer["diagnostics"]
    assert redact("console-tok-1 console-tok-2") == "console-tok-1 console-tok-2"
