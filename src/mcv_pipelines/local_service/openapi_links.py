"""OpenAPI links between the operations: how the answer of one request feeds the next.

They let a stateful tester (Schemathesis) or a reader follow the service's flows: create a job, read
its first task, upload a file to that task's form, wait for the job, delete it; create a standalone
task and cancel, retry or delete it; create a webhook and delete it.
"""

from __future__ import annotations

from typing import Any

from mcv_pipelines.local_service.routes_tasks import STANDALONE

__all__ = ["with_links"]

Obj = dict[str, Any]

_TASK = {"task_id": "$response.body#/data/id"}
_FIRST_TASK = {"task_id": "$response.body#/data/tasks/0/id"}
_JOB = {"job_id": "$response.body#/data/id"}
_FORM = "$response.body#/data/result/form/parameters/"
# The form's fields, sent back as they came; the tester adds the file part itself.
_UPLOAD_BODY = {name: _FORM + name for name in ("expires", "max_file_count", "max_file_size", "signature")}


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


def _standalone_id(operation: str) -> str:
    return "create" + "".join(part.capitalize() for part in operation.replace("/", "-").split("-")) + "Task"


def _table() -> dict[tuple[str, str], dict[str, Obj]]:
    """(operationId, status) -> the links of that answer."""
    upload = {"operationId": "uploadFile", "parameters": _TASK, "requestBody": _UPLOAD_BODY}
    table: dict[tuple[str, str], dict[str, Obj]] = {
        ("createJob", "201"): _job_flows(),
        ("createJobSync", "201"): _job_flows(),
        ("showTask", "200"): {"Upload": upload},
        ("createWebhook", "201"): {
            "DeleteWebhook": {
                "operationId": "deleteWebhook",
                "parameters": {"webhook_id": "$response.body#/data/id"},
            }
        },
    }
    for operation in STANDALONE:
        links = _task_flows("Task", _TASK)
        if operation == "import/upload":
            links["Upload"] = upload
        table[(_standalone_id(operation), "201")] = links
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
