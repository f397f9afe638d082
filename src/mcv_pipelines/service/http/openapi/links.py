"""OpenAPI links between the operations: how the answer of one request feeds the next.

They let a stateful tester (Schemathesis) or a reader follow the service's flows: create a job, read
its first task, upload a file to that task's form, wait for the job, delete it; create a standalone
import/upload task and upload to it, cancel, retry or delete it; create a webhook and delete it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["with_links"]

Obj = dict[str, Any]

_TASK = {"task_id": "$response.body#/data/id"}
_FIRST_TASK = {"task_id": "$response.body#/data/tasks/0/id"}
_JOB = {"job_id": "$response.body#/data/id"}


def _upload(params: Obj, task: str) -> Obj:
    """Upload to an import/upload task's form: its fields sent back as they came (a form without
    redirect has none: empty), the file part added by the tester."""
    form = f"$response.body#/data/{task}result/form/parameters/"
    body: Obj = {name: form + name for name in ("expires", "max_file_count", "max_file_size", "signature")}
    return {"operationId": "uploadFile", "parameters": params, "requestBody": {**body, "redirect": ""}}


def _task_flows(prefix: str, params: Obj) -> dict[str, Obj]:
    return {
        f"{prefix}Show": {"operationId": "showTask", "parameters": params},
        f"{prefix}Wait": {"operationId": "waitTaskSync", "parameters": params},
        f"{prefix}Cancel": {"operationId": "cancelTask", "parameters": params},
        f"{prefix}Retry": {"operationId": "retryTask", "parameters": params},
        f"{prefix}Delete": {"operationId": "deleteTask", "parameters": params},
    }


def _job_flows() -> dict[str, Obj]:
    return {
        "ShowJob": {"operationId": "showJob", "parameters": _JOB},
        "WaitJob": {"operationId": "waitJob", "parameters": _JOB},
        "DeleteJob": {"operationId": "deleteJob", "parameters": _JOB},
        **_task_flows("FirstTask", _FIRST_TASK),
    }


def _table() -> dict[tuple[str, str], dict[str, Obj]]:
    """(operationId, status) -> the links of that answer."""
    upload = _upload(_TASK, "")
    table: dict[tuple[str, str], dict[str, Obj]] = {
        ("createJob", "201"): {**_job_flows(), "FirstTaskUpload": _upload(_FIRST_TASK, "tasks/0/")},
        ("showTask", "200"): {"Upload": upload},
        ("createJobSync", "201"): _job_flows(),
        ("createWebhook", "201"): {
            "DeleteWebhook": {
                "operationId": "deleteWebhook",
                "parameters": {"webhook_id": "$response.body#/data/id"},
            }
        },
    }
    # The standalone flows once, on import/upload (the others differ only in their bodies): a
    # tester that walks links spends its steps on flows, not on 21 copies of one.
    flows = _task_flows("Task", _TASK)
    table[("createImportUploadTask", "201")] = {**flows, "Upload": upload}
    return table


def with_links(document: Obj) -> Obj:
    """``document`` with the links added to the answers they start from."""
    by_id = {
        op["operationId"]: op
        for item in document["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    for (op_id, status), links in _table().items():
        by_id[op_id]["responses"][status]["links"] = links
    return document
