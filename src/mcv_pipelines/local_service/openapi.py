"""The service's contract as an OpenAPI 3.1 document, built from the route table's operations.

Served at ``GET /openapi.json`` and committed as schemas/openapi.json (``scripts/write-openapi.py``
writes it; a test checks the two agree). It says what the service does, errors included: 401/403
for a missing key or scope, 404 for another user's or a missing resource, 422 ``INVALID_DATA`` with
per-field messages, 429 with Retry-After on creation.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from mcv_pipelines.local_service.body_schema import operation_schema
from mcv_pipelines.local_service.openapi_links import with_links
from mcv_pipelines.local_service.openapi_schemas import components, standalone_ref
from mcv_pipelines.local_service.routes_tasks import STANDALONE
from mcv_pipelines.local_service.validate import OPERATIONS

__all__ = ["build_document", "document_text", "openapi_json"]

Obj = dict[str, Any]

_RATE_HEADERS: Obj = {
    "X-RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Creations allowed per period."},
    "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Creations left now."},
}


def _json(schema: str) -> Obj:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def _answer(description: str, schema: str | None = None, headers: Obj | None = None) -> Obj:
    out: Obj = {"description": description}
    if schema is not None:
        out["content"] = _json(schema)
    if headers:
        out["headers"] = headers
    return out


_ERRORS: dict[str, Obj] = {
    "401": _answer("No valid API key (UNAUTHENTICATED).", "Error"),
    "403": _answer("The key lacks the scope, or a signature is not valid or has expired.", "Error"),
    "404": _answer("No such resource for this key (NOT_FOUND).", "Error"),
    "409": _answer("The upload task is no longer waiting (TASK_NOT_WAITING).", "Error"),
    "402": _answer("The account has no credits left (CREDITS_EXCEEDED).", "Error"),
    "413": _answer("The file is larger than the form's max_file_size (FILE_TOO_LARGE).", "Error"),
    "422": _answer("Invalid data (INVALID_DATA), with messages per field.", "InvalidData"),
    "429": _answer(
        "Too many creations (TOO_MANY_REQUESTS).",
        "Error",
        {"Retry-After": {"required": True, "schema": {"type": "integer"}}, **_RATE_HEADERS},
    ),
}


def _errors(*codes: str) -> Obj:
    return {code: _ERRORS[code] for code in codes}


def _param(name: str, where: str, schema: Obj, description: str = "", required: bool = False) -> Obj:
    out: Obj = {"name": name, "in": where, "schema": schema, "required": required or where == "path"}
    if description:
        out["description"] = description
    return out


def _id(name: str) -> Obj:
    return _param(name, "path", {"type": "string"})


_PAGING = [
    _param("page", "query", {"type": "integer", "minimum": 1, "maximum": 10**9}, "Page number, from 1."),
    _param("per_page", "query", {"type": "integer", "minimum": 1, "maximum": 1000}, "Items per page (100)."),
]
_INCLUDE = _param(
    "include", "query", {"type": "string"}, "Comma-separated: retries, depends_on_tasks, payload, job."
)
# Flags are read as text: true or 1 turns them on, any other value leaves them off.
_FLAG = {"type": "string", "examples": ["true", "false"]}
_REDIRECT = _param("redirect", "query", _FLAG, "true: answer 302 to the first export URL.")
_LISTING = [
    *(
        _param(f"filter[{name}]", "query", {"type": "string"})
        for name in ("operation", "input_format", "output_format", "engine", "engine_version")
    ),
    _param("alternatives", "query", _FLAG, "true: list alternative engines too."),
    _param("include", "query", {"type": "string"}, "Comma-separated: options, engine_versions."),
]
_TO_EXPORT: Obj = {
    "description": "The job has an export file: redirect to it.",
    "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
}


def _op(op_id: str, summary: str, tag: str, ok: Obj, *, scope: str | None, **more: Any) -> Obj:
    """One operation; ``scope`` None means no authentication (listings, upload form, files)."""
    out: Obj = {"operationId": op_id, "summary": summary, "tags": [tag], **more}
    out["responses"] = {**ok, **out.get("responses", {})}
    if scope is None:
        out["security"] = []
    else:
        out["description"] = f"Needs an API key with the scope {scope}."
        out["responses"] = {**out["responses"], **_errors("401", "403")}
        for answer in ok.values():
            answer.setdefault("headers", dict(_RATE_HEADERS))
    return out


def _body(schema: Obj, required: bool = True) -> Obj:
    """A JSON body; one that is not required may be left out (the service reads it as {})."""
    return {"required": required, "content": {"application/json": {"schema": schema}}}


def _jobs() -> Obj:
    job_ok = {"200": _answer("The job.", "JobAnswer")}
    return {
        "/v2/jobs": {
            "post": _op(
                "createJob",
                "Create a job",
                "jobs",
                {"201": _answer("The created job.", "JobAnswer")},
                scope="task.write",
                requestBody=_body({"$ref": "#/components/schemas/JobBody"}),
                responses=_errors("402", "422", "429"),
            ),
            "get": _op(
                "listJobs",
                "List jobs",
                "jobs",
                {"200": _answer("A page of jobs.", "JobList")},
                scope="task.read",
                parameters=[
                    _param("filter[status]", "query", {"type": "string"}),
                    _param("filter[tag]", "query", {"type": "string"}),
                    _param("include", "query", {"type": "string"}, "tasks: add each job's tasks."),
                    *_PAGING,
                ],
                responses=_errors("422"),
            ),
        },
        "/v2/jobs/{job_id}": {
            "parameters": [_id("job_id")],
            "get": _op(
                "showJob",
                "Show a job",
                "jobs",
                job_ok,
                scope="task.read",
                parameters=[_REDIRECT],
                responses={"302": _TO_EXPORT, **_errors("404")},
            ),
            "delete": _op(
                "deleteJob",
                "Delete a job and its tasks",
                "jobs",
                {"204": _answer("Deleted.")},
                scope="task.write",
                responses=_errors("404"),
            ),
        },
        "/v2/jobs/{job_id}/wait": {
            "parameters": [_id("job_id")],
            "get": _op(
                "waitJob",
                "Wait until the job has ended",
                "jobs",
                job_ok,
                scope="task.read",
                parameters=[_REDIRECT],
                responses={"302": _TO_EXPORT, **_errors("404")},
            ),
        },
        "/sync/v2/jobs": {
            "post": _op(
                "createJobSync",
                "Create a job and answer when it has ended",
                "sync",
                {"201": _answer("The ended job.", "JobAnswer")},
                scope="task.write",
                requestBody=_body({"$ref": "#/components/schemas/JobBody"}),
                responses={"302": _TO_EXPORT, **_errors("402", "422", "429")},
            ),
        },
        "/sync/v2/jobs/{job_id}": {
            "parameters": [_id("job_id")],
            "get": _op(
                "waitJobSync",
                "Wait until the job has ended",
                "sync",
                job_ok,
                scope="task.read",
                parameters=[_REDIRECT],
                responses={"302": _TO_EXPORT, **_errors("404")},
            ),
        },
    }


def _needs_body(operation: str) -> bool:
    """A standalone body may be left out when nothing but the operation (named by the path) is required."""
    required = (operation_schema(operation) or {}).get("required", [])
    return any(name != "operation" for name in required)


def _tasks() -> Obj:
    task_ok = {"200": _answer("The task.", "TaskAnswer")}
    paths: Obj = {
        "/v2/tasks": {
            "get": _op(
                "listTasks",
                "List tasks",
                "tasks",
                {"200": _answer("A page of tasks.", "TaskList")},
                scope="task.read",
                parameters=[
                    *(
                        _param(f"filter[{n}]", "query", {"type": "string"})
                        for n in ("job_id", "status", "operation")
                    ),
                    _param(
                        "include", "query", {"type": "string"}, "Comma-separated: retries, depends_on_tasks."
                    ),
                    *_PAGING,
                ],
                responses=_errors("422"),
            )
        },
        "/v2/tasks/{task_id}": {
            "parameters": [_id("task_id")],
            "get": _op(
                "showTask",
                "Show a task",
                "tasks",
                task_ok,
                scope="task.read",
                parameters=[_INCLUDE],
                responses=_errors("404"),
            ),
            "delete": _op(
                "deleteTask",
                "Delete a task and its files",
                "tasks",
                {"204": _answer("Deleted.")},
                scope="task.write",
                responses=_errors("404"),
            ),
        },
        "/sync/v2/tasks/{task_id}": {
            "parameters": [_id("task_id")],
            "get": _op(
                "waitTaskSync",
                "Wait until the task has ended",
                "sync",
                task_ok,
                scope="task.read",
                parameters=[_INCLUDE],
                responses=_errors("404"),
            ),
        },
        "/v2/tasks/{task_id}/cancel": {
            "parameters": [_id("task_id")],
            "post": _op(
                "cancelTask",
                "Cancel a waiting or processing task",
                "tasks",
                task_ok,
                scope="task.write",
                responses=_errors("404", "422"),
            ),
        },
        "/v2/tasks/{task_id}/retry": {
            "parameters": [_id("task_id")],
            "post": _op(
                "retryTask",
                "Create a new task from this one's payload",
                "tasks",
                {"201": _answer("The new task.", "TaskAnswer")},
                scope="task.write",
                responses=_errors("402", "404", "429"),
            ),
        },
    }
    for op in STANDALONE:
        name = "".join(part.capitalize() for part in op.replace("/", "-").split("-"))
        paths[f"/v2/{op}"] = {
            "post": _op(
                f"create{name}Task",
                f"Create a {op} task",
                "tasks",
                {"201": _answer("The created task.", "TaskAnswer")},
                scope="task.write",
                requestBody=_body(standalone_ref(op), _needs_body(op)),
                responses=_errors("402", "422", "429"),
            )
        }
    return paths


def _account() -> Obj:
    return {
        "/v2/users/me": {
            "get": _op(
                "showMe",
                "The caller's account",
                "account",
                {"200": _answer("The user.", "UserAnswer")},
                scope="user.read",
            )
        },
        "/v2/users/me/webhooks": {
            "get": _op(
                "listWebhooks",
                "List webhooks",
                "account",
                {"200": _answer("A page of webhooks.", "WebhookList")},
                scope="webhook.read",
                parameters=[_param("filter[url]", "query", {"type": "string"}), *_PAGING],
                responses=_errors("422"),
            ),
        },
        "/v2/webhooks": {
            "post": _op(
                "createWebhook",
                "Create a webhook",
                "account",
                {"201": _answer("The webhook.", "WebhookAnswer")},
                scope="webhook.write",
                requestBody=_body({"$ref": "#/components/schemas/WebhookBody"}),
                responses=_errors("422"),
            ),
        },
        "/v2/webhooks/{webhook_id}": {
            "parameters": [_id("webhook_id")],
            "delete": _op(
                "deleteWebhook",
                "Delete a webhook",
                "account",
                {"204": _answer("Deleted.")},
                scope="webhook.write",
                responses=_errors("404"),
            ),
        },
    }


def _open() -> Obj:
    listing = {"200": _answer("Conversion types of the engines on this machine.", "OperationList")}
    form_fields = {
        name: {"type": "string"}
        for name in ("expires", "max_file_count", "max_file_size", "signature", "redirect")
    }
    return {
        "/v2/operations": {
            "get": _op(
                "listOperations", "List operations", "listing", listing, scope=None, parameters=_LISTING
            )
        },
        "/v2/convert/formats": {
            "get": _op(
                "listConvertFormats",
                "List convert formats",
                "listing",
                listing,
                scope=None,
                parameters=_LISTING[1:],
            )
        },
        "/upload/{task_id}": {
            "parameters": [_id("task_id")],
            "post": _op(
                "uploadFile",
                "Upload the file of an import/upload task (its form's url)",
                "files",
                {
                    "201": _answer("The finished import/upload task.", "TaskAnswer"),
                    "303": {
                        "description": "The form carried redirect: go there.",
                        "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
                    },
                },
                scope=None,
                requestBody={
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["file"],
                                "properties": {
                                    **form_fields,
                                    "file": {
                                        "type": "string",
                                        "contentMediaType": "application/octet-stream",
                                    },
                                },
                            }
                        }
                    },
                },
                responses=_errors("403", "404", "409", "413", "422"),
            ),
        },
        "/files/{task_id}/{filename}": {
            "parameters": [_id("task_id"), _id("filename")],
            **{
                method: _op(
                    f"{method}File",
                    "Download an exported file (an export/url result's url)",
                    "files",
                    {
                        "200": {"description": "The file.", "content": {"*/*": {"schema": {}}}},
                        "206": {"description": "The requested range.", "content": {"*/*": {"schema": {}}}},
                    },
                    scope=None,
                    parameters=[
                        _param(n, "query", {"type": "string"}) for n in ("expires", "signature", "inline")
                    ],
                    responses=_errors("403", "404"),
                )
                for method in ("get", "head")
            },
        },
        "/metrics": {
            "get": _op(
                "metrics",
                "Prometheus metrics",
                "operations",
                {
                    "200": {
                        "description": "Prometheus or OpenMetrics text.",
                        "content": {
                            "text/plain": {"schema": {"type": "string"}},
                            "application/openmetrics-text": {"schema": {"type": "string"}},
                        },
                    }
                },
                scope=None,
            )
        },
        "/openapi.json": {
            "get": _op(
                "openapi",
                "This document",
                "operations",
                {
                    "200": {
                        "description": "OpenAPI 3.1.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
                scope=None,
            )
        },
    }


def build_document() -> Obj:
    """The whole OpenAPI 3.1 document (no servers: point a client at the address of ``mcv serve``)."""
    operations = list(OPERATIONS)
    document: Obj = {
        "openapi": "3.1.0",
        "info": {
            "title": "mcv local media conversion service",
            "version": "2",
            "description": "The v2 media conversion interface as `mcv serve` implements it.",
        },
        "security": [{"bearer": []}],
        "paths": {**_jobs(), **_tasks(), **_account(), **_open()},
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "Authorization: Bearer <API key>",
                }
            },
            "schemas": components(operations, list(STANDALONE)),
        },
    }
    return with_links(document)


def document_text() -> str:
    """The document as committed: sorted keys, two-space indent, a final newline."""
    return json.dumps(build_document(), indent=2, sort_keys=True) + "\n"


async def openapi_json(request: Request) -> JSONResponse:
    return JSONResponse(build_document())
