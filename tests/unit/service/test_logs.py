"""The service log: one JSON object (or one human line) per request and per task state change, with
secrets masked and nothing repeated for progress updates."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.http import logs
from mcv_pipelines.service.state.changes import Change


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    logs.configure("json", stream)
    yield stream
    logs.reset()


@pytest.fixture
def text_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    logs.configure("text", stream)
    yield stream
    logs.reset()


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_request_is_one_json_line_with_its_facts(json_log: io.StringIO) -> None:
    logs.log_request("GET", "/v2/jobs/{job_id}", 200, 0.0123, "req-1", 7)
    logs.log_request("POST", "/v2/jobs", 500, 0.5, "req-2", None)
    first, second = lines(json_log)
    assert first.pop("time").endswith("Z")
    assert first == {
        "level": "info",
        "event": "request",
        "method": "GET",
        "route": "/v2/jobs/{job_id}",
        "status": 200,
        "duration_ms": 12.3,
        "request_id": "req-1",
        "user_id": 7,
    }
    assert second["level"] == "error"
    assert second["user_id"] is None


def test_task_state_changes_are_logged_once_each(json_log: io.StringIO) -> None:
    task_log = logs.TaskLog()
    what = {"job_id": "j1", "operation": "convert", "engine": "pillow", "user_id": 3}
    task_log(Change("task", "t1", "waiting", **what))
    task_log(Change("task", "t1", "processing", percent=0, **what))
    task_log(Change("task", "t1", "processing", percent=40, **what))  # progress: not a state change
    task_log(Change("task", "t1", "error", code="TIMEOUT", seconds=2.5, **what))
    task_log(Change("job", "j1", "error"))
    task_log(Change("task", "t2", "finished", remote=True, **what))  # the other process logs it
    found = lines(json_log)
    assert [(x["task_id"], x["status"]) for x in found] == [
        ("t1", "waiting"),
        ("t1", "processing"),
        ("t1", "error"),
    ]
    last = found[-1]
    del last["time"]
    assert last == {
        "level": "info",
        "event": "task",
        "task_id": "t1",
        "job_id": "j1",
        "operation": "convert",
        "engine": "pillow",
        "status": "error",
        "code": "TIMEOUT",
        "seconds": 2.5,
        "user_id": 3,
    }


def test_a_retried_status_after_an_end_is_logged_again(json_log: io.StringIO) -> None:
    task_log = logs.TaskLog(remember=2)
    for task_id in ("a", "b", "c"):  # more tasks than remembered: the oldest is forgotten, not wrong
        task_log(Change("task", task_id, "processing"))
    task_log(Change("task", "c", "processing"))
    assert [x["task_id"] for x in lines(json_log)] == ["a", "b", "c"]


def test_other_records_come_out_as_json_with_their_error(json_log: io.StringIO) -> None:
    try:
        raise ValueError("broken engine")
    except ValueError:
        logging.getLogger("mcv_pipelines.service.work.scheduler").exception("task t9 failed unexpectedly")
    logging.getLogger("mcv_pipelines.service.work.webhooks").info("webhook https://h/x?token=t: refused")
    (record,) = lines(json_log)  # INFO chatter of other modules stays out, as before
    assert record["event"] == "log"
    assert record["level"] == "error"
    assert record["logger"] == "mcv_pipelines.service.work.scheduler"
    assert record["message"] == "task t9 failed unexpectedly"
    assert "ValueError: broken engine" in record["error"]


def test_registered_secrets_never_reach_the_log(json_log: io.StringIO) -> None:
    key = "sk-log-test-9f3b2c1d"
    register_secret(key)
    logs.log_request("GET", "/v2/users/me", 200, 0.001, key, 1)  # a client sent its key as request id
    logging.getLogger("mcv_pipelines.service.http.app").warning("saw %s", key)
    assert key not in json_log.getvalue()
    assert [x.get("request_id", x.get("message")) for x in lines(json_log)] == ["***", "saw ***"]


def test_text_lines_carry_the_same_facts(text_log: io.StringIO) -> None:
    logs.log_request("GET", "/files/{task_id}/{filename}", 206, 0.0042, "r-9", 2)
    logs.TaskLog()(
        Change("task", "t1", "finished", job_id="j1", operation="convert", engine="pillow", seconds=1.25)
    )
    request, task = text_log.getvalue().splitlines()
    assert request.endswith(" INFO GET /files/{task_id}/{filename} 206 4.2 ms (request r-9 user 2)")
    assert task.endswith(" INFO task t1 convert/pillow finished after 1.25 s, job j1")


def test_nothing_is_written_until_configured() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.WARNING)  # Python's default, whatever the test run's options
    try:
        logs.log_request("GET", "/v2/users/me", 200, 0.001, "r", 1)
        logs.TaskLog()(Change("task", "t", "finished"))
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert stream.getvalue() == ""  # the embedded service of `mcv run` stays quiet
