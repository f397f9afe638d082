"""The document's links, followed literally: the flows a stateful tester or a generated client walks
(create a job, read its first task, upload to its form, wait, delete) work against the service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mcv_pipelines.service.http.openapi.document import build_document
from mcv_pipelines.service.server import LocalService

DOCUMENT = build_document()
OPERATIONS = {
    op["operationId"]: (path, method)
    for path, item in DOCUMENT["paths"].items()
    for method, op in item.items()
    if method != "parameters"
}


@pytest.fixture
def client(contract_service: LocalService) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=30) as c:
        yield c


def _evaluate(expression: Any, answer: httpx.Response) -> Any:
    """A link's runtime expression ($response.body#/json/pointer) on ``answer``; literals as they are."""
    if not (isinstance(expression, str) and expression.startswith("$response.body#")):
        return expression
    node = answer.json()
    for part in expression.split("#", 1)[1].strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _follow(
    client: httpx.Client, answer: httpx.Response, source: str, link: str, **send: Any
) -> httpx.Response:
    status = str(answer.status_code)
    spec = DOCUMENT["paths"][OPERATIONS[source][0]][OPERATIONS[source][1]]["responses"][status]["links"][link]
    path, method = OPERATIONS[spec["operationId"]]
    for name, expression in spec["parameters"].items():
        path = path.replace("{" + name + "}", str(_evaluate(expression, answer)))
    if "requestBody" in spec:
        fields = {k: str(_evaluate(v, answer)) for k, v in spec["requestBody"].items()}
        return client.request(method, path, data=fields, **send)
    return client.request(method, path, **send)


def test_job_then_first_task_then_upload_then_wait_then_delete(client: httpx.Client) -> None:
    job = {
        "tasks": {
            "upload-it": {"operation": "import/upload"},
            "export-it": {"operation": "export/url", "input": "upload-it"},
        }
    }
    created = client.post("/v2/jobs", json=job)
    assert created.status_code == 201
    task = _follow(client, created, "createJob", "FirstTaskShow")
    assert task.json()["data"]["status"] == "waiting"
    uploaded = _follow(client, task, "showTask", "Upload", files={"file": ("a.txt", b"hello")})
    assert uploaded.status_code == 201, uploaded.text
    waited = _follow(client, created, "createJob", "WaitJob")
    assert waited.json()["data"]["status"] == "finished"
    assert _follow(client, created, "createJob", "DeleteJob").status_code == 204
    assert _follow(client, created, "createJob", "ShowJob").status_code == 404


def test_upload_straight_from_the_created_job_and_from_a_standalone_task(client: httpx.Client) -> None:
    created = client.post("/v2/jobs", json={"tasks": {"up": {"operation": "import/upload"}}})
    assert (
        _follow(client, created, "createJob", "FirstTaskUpload", files={"file": ("a.txt", b"1")}).status_code
        == 201
    )
    task = client.post("/v2/import/upload")
    assert task.status_code == 201
    assert (
        _follow(client, task, "createImportUploadTask", "Upload", files={"file": ("b.txt", b"2")}).status_code
        == 201
    )
    assert _follow(client, task, "createImportUploadTask", "TaskShow").json()["data"]["status"] == "finished"
    retried = _follow(client, task, "createImportUploadTask", "TaskRetry")
    assert retried.status_code == 201
    assert (
        _follow(client, retried, "createImportUploadTask", "TaskCancel").json()["data"]["status"] == "error"
    )


def test_webhook_link_deletes_it(client: httpx.Client) -> None:
    hook = client.post("/v2/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": ["job.finished"]})
    assert hook.status_code == 201
    assert _follow(client, hook, "createWebhook", "DeleteWebhook").status_code == 204
    assert client.get("/v2/users/me/webhooks").json()["data"] == []
