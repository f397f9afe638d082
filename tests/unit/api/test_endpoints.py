"""Each client method calls its endpoint with the body the spec describes."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from apifakes import SYNC, job_json, task_json

from mcv_pipelines.api import ApiClient, OutcomeUnknown
from mcv_pipelines.redact import redact


def _recorder(answer: dict[str, Any], status: int = 201):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json={"data": answer})

    return seen, handler


@pytest.mark.parametrize(
    ("call", "path", "body"),
    [
        (
            lambda c: c.import_url("https://e.org/a.png", filename="b.png"),
            "/v2/import/url",
            {"url": "https://e.org/a.png", "filename": "b.png"},
        ),
        (
            lambda c: c.import_upload(redirect="https://e.org/done"),
            "/v2/import/upload",
            {"redirect": "https://e.org/done"},
        ),
        (
            lambda c: c.import_base64("aGk=", "a.txt"),
            "/v2/import/base64",
            {"file": "aGk=", "filename": "a.txt"},
        ),
        (lambda c: c.import_raw("hi", "a.txt"), "/v2/import/raw", {"file": "hi", "filename": "a.txt"}),
        (
            lambda c: c.import_s3(
                bucket="b", region="r", key="k", access_key_id="AKIA1", secret_access_key="s3cr3t-x"
            ),
            "/v2/import/s3",
            {
                "bucket": "b",
                "region": "r",
                "key": "k",
                "access_key_id": "AKIA1",
                "secret_access_key": "s3cr3t-x",
            },
        ),
        (
            lambda c: c.import_azure_blob(
                storage_account="acc", container="c", blob="b", sas_token="sas-tok"
            ),
            "/v2/import/azure/blob",
            {"storage_account": "acc", "container": "c", "blob": "b", "sas_token": "sas-tok"},
        ),
        (
            lambda c: c.import_google_cloud_storage(
                project_id="p", bucket="b", client_email="e", private_key="pk-1"
            ),
            "/v2/import/google-cloud-storage",
            {"project_id": "p", "bucket": "b", "client_email": "e", "private_key": "pk-1"},
        ),
        (
            lambda c: c.convert("t0", "pdf", engine="office"),
            "/v2/convert",
            {"input": "t0", "output_format": "pdf", "engine": "office"},
        ),
        (
            lambda c: c.thumbnail(["t0"], "png", width=200),
            "/v2/thumbnail",
            {"input": ["t0"], "output_format": "png", "width": 200},
        ),
        (lambda c: c.optimize("t0", profile="web"), "/v2/optimize", {"input": "t0", "profile": "web"}),
        (lambda c: c.merge(["t0", "t1"]), "/v2/merge", {"input": ["t0", "t1"], "output_format": "pdf"}),
        (
            lambda c: c.capture_website("https://e.org", "png"),
            "/v2/capture-website",
            {"url": "https://e.org", "output_format": "png"},
        ),
    ],
)
async def test_task_creation_endpoints(make_client, call, path, body) -> None:
    seen, handler = _recorder(task_json(status="processing"))
    client: ApiClient = make_client(handler)
    task = await call(client)
    assert task.status == "processing"
    assert (seen[0].method, seen[0].url.path) == ("POST", path)
    assert json.loads(seen[0].content) == body


def test_storage_credentials_are_registered_as_secrets() -> None:
    # nested payloads (a job's tasks) are searched too
    from mcv_pipelines.api.query import register_credentials

    register_credentials({"tasks": {"a": {"secret_access_key": "very-secret-value-9"}}})
    assert redact("key=very-secret-value-9") == "key=***"


async def test_job_creation_body_and_sync_creation(make_client) -> None:
    seen, handler = _recorder(job_json())
    client: ApiClient = make_client(handler)
    tasks = {"in": {"operation": "import/upload"}, "out": {"operation": "export/url", "input": "in"}}
    await client.create_job(tasks, tag="row-1", ignore_error=True, webhook_url="https://e.org/h")
    await client.create_job_sync(tasks, tag="row-2", max_wait=120)
    assert str(seen[0].url) == "http://127.0.0.1:9999/v2/jobs"
    assert json.loads(seen[0].content) == {
        "tasks": tasks,
        "tag": "row-1",
        "ignore_error": True,
        "webhook_url": "https://e.org/h",
    }
    assert str(seen[1].url) == f"{SYNC}/v2/jobs"
    assert seen[1].extensions["timeout"]["read"] == 120


async def test_sync_creation_that_times_out_is_outcome_unknown(make_client) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        raise httpx.ReadTimeout("slow", request=request)

    client: ApiClient = make_client(handler)
    with pytest.raises(OutcomeUnknown):
        await client.create_job_sync({"a": {"operation": "import/upload"}}, tag="x")
    assert len(seen) == 1


@pytest.mark.parametrize(
    ("call", "method", "path", "answer"),
    [
        (lambda c: c.get_task("t/1", include=["retries", "payload"]), "GET", "/v2/tasks/t%2F1", task_json()),
        (lambda c: c.cancel_task("t1"), "POST", "/v2/tasks/t1/cancel", task_json(status="error")),
        (lambda c: c.retry_task("t1"), "POST", "/v2/tasks/t1/retry", task_json("t2", retry_of_task_id="t1")),
        (lambda c: c.me(), "GET", "/v2/users/me", {"id": 3, "username": "ann", "credits": 5}),
        (
            lambda c: c.create_webhook("https://e.org/h", ["job.finished"]),
            "POST",
            "/v2/webhooks",
            {"id": 9, "url": "https://e.org/h", "events": ["job.finished"], "signing_secret": "whsec-abcdef"},
        ),
    ],
)
async def test_single_resource_endpoints(make_client, call, method, path, answer) -> None:
    seen, handler = _recorder(answer, status=200)
    client: ApiClient = make_client(handler)
    await call(client)
    assert seen[0].method == method
    assert seen[0].url.raw_path.decode().split("?")[0] == path


async def test_webhook_listing_filters_by_url(make_client) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, json={"data": [{"id": 1, "url": "https://e.org/h", "events": []}], "links": {"next": None}}
        )

    client: ApiClient = make_client(handler)
    hooks = [h async for h in client.list_webhooks(url="https://e.org/h")]
    assert hooks[0].url == "https://e.org/h"
    assert seen[0].url.path == "/v2/users/me/webhooks"
    assert seen[0].url.params["filter[url]"] == "https://e.org/h"


async def test_operation_names_are_checked(make_client) -> None:
    from mcv_pipelines.errors import UsageError

    client: ApiClient = make_client(lambda r: httpx.Response(500))
    with pytest.raises(UsageError):
        await client.create_task("../users/me", {})
