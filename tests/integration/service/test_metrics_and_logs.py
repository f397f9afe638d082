"""/metrics, request ids and the request/task log of a real service over loopback."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from service_helpers import TextEngine, task_named, upload, wait_job

from mcv_pipelines.service.http import logs
from mcv_pipelines.service.server import LocalService

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(base_url: str) -> tuple[str, Samples]:
    answer = httpx.get(f"{base_url}/metrics")  # no key: open, like /healthz
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
    }
    return answer.text, samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def convert_job(client: httpx.Client, content: bytes, **convert: Any) -> dict[str, Any]:
    """upload -> convert (text engine) -> export/url, run to the end."""
    created = client.post(
        "/v2/jobs",
        json={
            "tasks": {
                "in": {"operation": "import/upload"},
                "md": {"operation": "convert", "input": "in", "output_format": "md", **convert},
                "out": {"operation": "export/url", "input": "md"},
            }
        },
    )
    assert created.status_code == 201, created.text
    job = created.json()["data"]
    assert upload(task_named(job, "in")["result"]["form"], content).status_code == 201
    return wait_job(client, job["id"])


def test_a_job_shows_up_in_metrics_by_route_template_task_and_bytes(
    service: LocalService, client: httpx.Client
) -> None:
    content = b"hello metrics\n" * 10
    job = convert_job(client, content)
    link = task_named(job, "out")["result"]["files"][0]["url"]
    assert httpx.get(link).content == content
    assert httpx.get(link, headers={"Range": "bytes=0-3"}).content == content[:4]
    assert httpx.head(link).status_code == 200  # no body: counts nothing
    failed = wait_job(client, client.post("/v2/jobs", json={"tasks": {
        "in": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
        "md": {"operation": "convert", "input": "in", "output_format": "md", "fail": "ENGINE_SAID_NO"},
    }}).json()["data"]["id"])  # fmt: skip
    assert task_named(failed, "md")["code"] == "ENGINE_SAID_NO"
    assert client.get("/v2/no/such/thing").status_code == 404

    text, samples = scrape(service.base_url)
    requests = "mcv_http_requests_total"
    assert value(samples, requests, method="POST", route="/v2/jobs", status="201") == 2
    assert value(samples, requests, method="GET", route="/sync/v2/jobs/{job_id}", status="200") == 2
    assert value(samples, requests, method="POST", route="/upload/{task_id}", status="201") == 1
    assert value(samples, requests, method="GET", route="/files/{task_id}/{filename}", status="206") == 1
    assert value(samples, requests, method="GET", route="unmatched", status="404") == 1
    # Never raw paths with ids, never query strings (download links carry signatures).
    for task in job["tasks"]:
        assert task["id"] not in text
    assert job["id"] not in text
    assert "signature" not in text

    ended = "mcv_tasks_ended_total"
    assert value(samples, ended, operation="import/upload", engine="", status="finished") == 1
    assert value(samples, ended, operation="convert", engine="text", status="finished") == 1
    assert value(samples, ended, operation="convert", engine="", status="error") == 1
    assert value(samples, ended, operation="export/url", engine="", status="finished") == 1
    assert value(samples, "mcv_task_duration_seconds_count", operation="convert", engine="text") == 1

    assert value(samples, "mcv_file_bytes_total", direction="in") == len(content)
    assert value(samples, "mcv_file_bytes_total", direction="out") == len(content) + 4
    assert value(samples, "mcv_task_queue_depth") == 0
    assert value(samples, "mcv_task_leases_lost_total") == 0


def test_the_queue_depth_counts_runnable_waiting_tasks(tmp_path: Path) -> None:
    slow = {"operation": "convert", "input": "in", "output_format": "md", "sleep": 30}
    tasks: dict[str, Any] = {"in": {"operation": "import/raw", "file": "x", "filename": "x.txt"}}
    tasks |= {f"c{i}": slow for i in range(3)}
    tasks["later"] = {"operation": "convert", "input": "c0", "output_format": "txt"}  # its input runs
    settings = {"workers": 1}
    with LocalService(data_dir=tmp_path / "data", engines=[TextEngine()], settings=settings) as service:
        headers = {"Authorization": f"Bearer {service.api_key}"}
        job = httpx.post(f"{service.base_url}/v2/jobs", json={"tasks": tasks}, headers=headers).json()["data"]
        # One worker: one conversion runs, two wait although they could run, one waits for its input.
        deadline = time.monotonic() + 20
        depth = None
        while depth != 2 and time.monotonic() < deadline:
            depth = value(scrape(service.base_url)[1], "mcv_task_queue_depth")
            time.sleep(0.05)
        assert depth == 2
        httpx.delete(f"{service.base_url}/v2/jobs/{job['id']}", headers=headers)


def test_an_injected_fault_is_counted_under_its_route(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path / "data", engines=[], faults="503=1") as service:
        answer = httpx.get(
            f"{service.base_url}/v2/jobs", headers={"Authorization": f"Bearer {service.api_key}"}
        )
        assert answer.status_code == 503
        _, samples = scrape(service.base_url)
    assert value(samples, "mcv_http_requests_total", method="GET", route="/v2/jobs", status="503") == 1


def test_two_services_in_one_process_keep_their_own_numbers(service: LocalService, tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path / "other", engines=[]) as other:
        assert httpx.get(f"{other.base_url}/v2/users/me").status_code == 401
        _, mine = scrape(service.base_url)
        _, theirs = scrape(other.base_url)
    labels = {"method": "GET", "route": "/v2/users/me", "status": "401"}
    assert value(theirs, "mcv_http_requests_total", **labels) == 1
    assert value(mine, "mcv_http_requests_total", **labels) is None


@pytest.mark.parametrize(
    ("sent", "kept"),
    [(None, False), ("req-42.abc:7", True), ("has spaces in it", False), ("x" * 200, False)],
)
def test_every_answer_has_a_request_id(client: httpx.Client, sent: str | None, kept: bool) -> None:
    headers = {"X-Request-Id": sent} if sent is not None else {}
    answer = client.get("/v2/users/me", headers=headers)
    request_id = answer.headers["x-request-id"]
    if kept:
        assert request_id == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    assert client.get("/v2/no/such/thing").headers["x-request-id"] != request_id


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    logs.configure("json", stream)
    yield stream
    logs.reset()


def test_json_log_has_a_line_per_request_and_per_task_change_without_secrets(
    json_log: io.StringIO, service: LocalService, client: httpx.Client
) -> None:
    job = convert_job(client, b"log me")
    link = task_named(job, "out")["result"]["files"][0]["url"]
    assert httpx.get(link, headers={"X-Request-Id": "dl-1"}).status_code == 200
    deadline = time.monotonic() + 10  # the line is written once the answer has gone out
    while '"dl-1"' not in json_log.getvalue() and time.monotonic() < deadline:
        time.sleep(0.02)
    records = [json.loads(line) for line in json_log.getvalue().splitlines()]
    requests = [r for r in records if r["event"] == "request"]
    download = next(r for r in requests if r["request_id"] == "dl-1")
    assert download["route"] == "/files/{task_id}/{filename}"
    assert download["status"] == 200
    assert download["user_id"] is None  # a signed link, no key
    create = next(r for r in requests if r["route"] == "/v2/jobs")
    assert (create["method"], create["status"], create["user_id"]) == ("POST", 201, 1)
    tasks = [(r["operation"], r["engine"], r["status"]) for r in records if r["event"] == "task"]
    assert tasks == [
        ("import/upload", None, "finished"),
        ("convert", "text", "finished"),
        ("export/url", None, "finished"),
    ]
    log_text = json_log.getvalue()
    assert service.api_key not in log_text
    assert "signature" not in log_text
    assert "?" not in log_text


def test_a_task_under_a_second_is_timed_to_the_millisecond_in_log_and_metrics(
    json_log: io.StringIO, service: LocalService, client: httpx.Client
) -> None:
    # The API keeps start and end to the second: a duration from them was 0 s or 1 s, never 0.35 s.
    convert_job(client, b"slow enough", sleep=0.35)
    deadline = time.monotonic() + 10  # the task's line is written once its end committed
    while '"export/url"' not in json_log.getvalue() and time.monotonic() < deadline:
        time.sleep(0.02)
    records = [json.loads(line) for line in json_log.getvalue().splitlines()]
    (convert,) = [r for r in records if r["event"] == "task" and r["operation"] == "convert"]
    # at least the engine's sleep, not a whole number of seconds (a stall under load may add some)
    assert convert["seconds"] >= 0.35
    assert convert["seconds"] % 1 != 0
    _, samples = scrape(service.base_url)
    total = value(samples, "mcv_task_duration_seconds_sum", operation="convert", engine="text")
    assert total == pytest.approx(convert["seconds"], abs=0.001)  # the log rounds to the millisecond
