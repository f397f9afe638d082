"""Keys and scopes, users/me, webhooks (management and signed, retried deliveries)."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import httpx
from service_helpers import Receiver, wait_job

from mcv_pipelines.service.server import LocalService
from waiting import wait_until

JOB = {"tasks": {"in": {"operation": "import/raw", "file": "x", "filename": "a.txt"}}}
FAILING_JOB = {"tasks": {"in": {"operation": "import/base64", "file": "abc", "filename": "a.txt"}}}


def test_missing_or_bad_key_is_401_with_a_body(service: LocalService) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {service.api_key}"}):
        answer = httpx.get(f"{service.base_url}/v2/jobs", headers=headers)
        assert answer.status_code == 401
        assert answer.json()["code"] == "UNAUTHENTICATED"


def test_missing_scope_is_403(service: LocalService) -> None:
    key = service.add_api_key(scopes=["task.read"])
    headers = {"Authorization": f"Bearer {key}"}
    assert httpx.get(f"{service.base_url}/v2/jobs", headers=headers).status_code == 200
    denied = httpx.post(f"{service.base_url}/v2/jobs", json=JOB, headers=headers)
    assert denied.status_code == 403
    assert denied.json()["code"] == "FORBIDDEN"
    assert "task.write" in denied.json()["message"]
    assert httpx.get(f"{service.base_url}/v2/users/me", headers=headers).status_code == 403


def test_a_key_sees_only_its_users_jobs(service: LocalService, client: httpx.Client) -> None:
    job_id = client.post("/v2/jobs", json=JOB).json()["data"]["id"]
    other = {"Authorization": f"Bearer {service.add_api_key()}"}
    assert httpx.get(f"{service.base_url}/v2/jobs/{job_id}", headers=other).status_code == 404
    assert httpx.get(f"{service.base_url}/v2/jobs", headers=other).json()["data"] == []
    task_id = client.get(f"/v2/jobs/{job_id}").json()["data"]["tasks"][0]["id"]
    assert httpx.delete(f"{service.base_url}/v2/tasks/{task_id}", headers=other).status_code == 404
    assert client.get(f"/v2/tasks/{task_id}").status_code == 200


def test_unknown_path_and_method_answer_json(client: httpx.Client) -> None:
    assert client.get("/v2/nothing").json()["code"] == "NOT_FOUND"
    assert client.put("/v2/jobs").status_code == 405


def test_webhook_management(client: httpx.Client) -> None:
    created = client.post("/v2/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": ["job.finished"]})
    assert created.status_code == 201
    hook = created.json()["data"]
    assert isinstance(hook["id"], int)
    assert hook["disabled"] is False
    assert hook["failing"] is False
    assert len(hook["signing_secret"]) >= 16
    assert hook["links"]["self"].endswith(f"/v2/webhooks/{hook['id']}")
    listed = client.get("/v2/users/me/webhooks", params={"filter[url]": "http://127.0.0.1:9/hook"}).json()
    assert [h["id"] for h in listed["data"]] == [hook["id"]]
    assert client.get("/v2/users/me/webhooks", params={"filter[url]": "http://x"}).json()["data"] == []
    bad = client.post("/v2/webhooks", json={"url": "nope", "events": ["job.exploded"]})
    assert set(bad.json()["errors"]) == {"url", "events"}
    assert client.delete(f"/v2/webhooks/{hook['id']}").status_code == 204
    assert client.delete(f"/v2/webhooks/{hook['id']}").status_code == 404


def test_webhooks_are_signed_and_carry_the_job(client: httpx.Client) -> None:
    with Receiver() as receiver:
        hook = client.post(
            "/v2/webhooks",
            json={"url": receiver.url + "/hook", "events": ["job.created", "job.finished", "job.failed"]},
        ).json()["data"]
        job_id = client.post("/v2/jobs", json=JOB).json()["data"]["id"]
        wait_job(client, job_id)
        requests = receiver.wait_for(2)
    events = []
    for method, path, headers, body in requests:
        assert (method, path) == ("POST", "/hook")
        expected = hmac.new(hook["signing_secret"].encode(), body, hashlib.sha256).hexdigest()
        assert headers["Service-Signature"] == expected
        assert headers["CloudConvert-Signature"] == expected
        payload = json.loads(body)
        assert payload["job"]["id"] == job_id
        events.append(payload["event"])
    assert events == ["job.created", "job.finished"]
    finished = json.loads(requests[1][3])["job"]
    assert finished["status"] == "finished"
    assert finished["tasks"][0]["depends_on_task_ids"] == []


def _job_with_a_marker(client: httpx.Client, receiver: Receiver) -> str:
    """Run a job whose own webhook_url is the receiver's /marker, and wait for that delivery.

    The service delivers a job's event to its user's webhooks first, one after the other and retries
    included, then to the job's own URL: once the marker is in, every delivery of this job to a user
    webhook that was ever going to be made has been made (issue 30: no sleep before "nothing else came").
    """
    created = client.post("/v2/jobs", json={**JOB, "webhook_url": receiver.url + "/marker"})
    job_id: str = created.json()["data"]["id"]
    wait_job(client, job_id)
    wait_until(
        lambda: any(r[1] == "/marker" and json.loads(r[3])["job"]["id"] == job_id for r in receiver.requests),
        what=f"job {job_id}'s delivery to its own webhook_url",
    )
    return job_id


def _to_hooks(receiver: Receiver) -> list[tuple[str, str]]:
    """(path, job id) of every request the receiver got, but the markers."""
    return [(r[1], json.loads(r[3])["job"]["id"]) for r in receiver.requests if r[1] != "/marker"]


def test_a_webhook_added_or_deleted_between_jobs_counts_from_the_next_job(client: httpx.Client) -> None:
    """The service remembers which users have webhooks (asked at every job's start and end); a webhook
    made after jobs ran without one is told of the next job, and a deleted one of none."""
    wait_job(client, client.post("/v2/jobs", json=JOB).json()["data"]["id"])  # no webhook yet
    with Receiver() as receiver:
        hook = client.post("/v2/webhooks", json={"url": receiver.url + "/late", "events": ["job.finished"]})
        job_id = client.post("/v2/jobs", json=JOB).json()["data"]["id"]
        wait_job(client, job_id)
        requests = receiver.wait_for(1)
        assert [json.loads(r[3])["job"]["id"] for r in requests] == [job_id]
        assert client.delete(f"/v2/webhooks/{hook.json()['data']['id']}").status_code == 204
        _job_with_a_marker(client, receiver)
        assert _to_hooks(receiver) == [("/late", job_id)]  # deleted: the third job is nobody's business


def test_job_webhook_url_gets_the_failure(client: httpx.Client) -> None:
    with Receiver() as receiver:
        job_id = client.post(
            "/v2/jobs",
            json={**FAILING_JOB, "webhook_url": receiver.url + "/once", "webhook_signing_secret": "s3"},
        ).json()["data"]["id"]
        wait_job(client, job_id)
        requests = receiver.wait_for(1)
    assert len(requests) == 1
    assert json.loads(requests[0][3])["event"] == "job.failed"
    assert requests[0][2]["Service-Signature"] == hmac.new(b"s3", requests[0][3], hashlib.sha256).hexdigest()


def test_5xx_is_retried_three_times_and_410_disables(client: httpx.Client) -> None:
    with Receiver() as receiver:
        receiver.statuses = [500, 502, 503, 500]
        hook = client.post("/v2/webhooks", json={"url": receiver.url, "events": ["job.finished"]}).json()[
            "data"
        ]
        first = _job_with_a_marker(client, receiver)
        assert _to_hooks(receiver) == [("/", first)] * 4  # one delivery and 3 retries
        shown = client.get("/v2/users/me/webhooks").json()["data"][0]
        assert shown["failing"] is True
        assert shown["last_response_code"] == "500"
        assert shown["last_error_at"]
        receiver.statuses = [410]
        second = _job_with_a_marker(client, receiver)
        assert _to_hooks(receiver) == [("/", first)] * 4 + [("/", second)]  # a 410 is not retried
        shown = client.get("/v2/users/me/webhooks").json()["data"][0]
        assert shown["id"] == hook["id"]
        assert shown["disabled"] is True
        _job_with_a_marker(client, receiver)
        assert _to_hooks(receiver) == [("/", first)] * 4 + [("/", second)]  # disabled: nothing more is sent


def test_network_errors_are_noted(client: httpx.Client) -> None:
    client.post("/v2/webhooks", json={"url": "http://127.0.0.1:9/closed", "events": ["job.finished"]})
    wait_job(client, client.post("/v2/jobs", json=JOB).json()["data"]["id"])
    hook: dict[str, Any] = wait_until(
        lambda: next((h for h in client.get("/v2/users/me/webhooks").json()["data"] if h["failing"]), None),
        what="the webhook to be marked failing",
    )
    assert hook["last_response_code"] == "NETWORK_ERROR"


def test_no_credits_left_is_402(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path, engines=[], settings={"default_credits": 0}) as svc:
        answer = httpx.post(
            f"{svc.base_url}/v2/jobs", json=JOB, headers={"Authorization": f"Bearer {svc.api_key}"}
        )
        assert answer.status_code == 402
        assert answer.json()["code"] == "CREDITS_EXCEEDED"
