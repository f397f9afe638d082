"""The components of the service's OpenAPI document: resources, list envelopes, error bodies, and the
request bodies of tasks, taken from schemas/operations/*.schema.json rather than written again.

A job's task (``input`` by task name) is the operation schema as it is; a standalone task (POST
/v2/{operation}, ``input`` by task ID) is the same schema without ``operation``, which the path names.
"""

from __future__ import annotations

import copy
from typing import Any

from mcv_pipelines.service.http.body_schema import operation_schema

__all__ = ["components", "job_task_ref", "standalone_ref"]

Schema = dict[str, Any]

_NULLABLE_STRING: Schema = {"type": ["string", "null"]}
_TIME: Schema = {"type": ["string", "null"], "description": "ISO 8601 with a numeric UTC offset."}
_LINKS: Schema = {
    "type": "object",
    "required": ["self"],
    "properties": {"self": {"type": "string", "description": "URL of this resource."}},
}


def _component_name(operation: str, standalone: bool) -> str:
    return ("Standalone-" if standalone else "JobTask-") + operation.replace("/", "-")


def job_task_ref(operation: str) -> Schema:
    return {"$ref": f"#/components/schemas/{_component_name(operation, False)}"}


def standalone_ref(operation: str) -> Schema:
    return {"$ref": f"#/components/schemas/{_component_name(operation, True)}"}


def _loaded(operation: str) -> Schema:
    schema = operation_schema(operation)
    assert schema is not None, f"schemas/operations has no schema of {operation}"
    # The document is the schema's home now; an $id would make its references resolve elsewhere.
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    return schema


def _standalone(operation: str) -> Schema:
    schema = copy.deepcopy(_loaded(operation))
    # The path names the operation; a body may repeat it (the service refuses another one).
    schema["required"] = [name for name in schema.get("required", []) if name != "operation"]
    schema["title"] = f"{operation} (standalone)"
    for name in ("input", "image"):  # by task ID here, not by task name
        if name in schema["properties"]:
            schema["properties"][name]["description"] = (
                "Task ID, or list of task IDs, whose files this takes."
            )
    return schema


def _task() -> Schema:
    return {
        "type": "object",
        "required": ["id", "operation", "status", "created_at", "links"],
        "properties": {
            "id": {"type": "string"},
            "job_id": _NULLABLE_STRING,
            "name": {"type": ["string", "null"], "description": "Only on tasks that are part of a job."},
            "operation": {"type": "string"},
            "status": {"enum": ["waiting", "processing", "finished", "error"]},
            "message": _NULLABLE_STRING,
            "code": _NULLABLE_STRING,
            "credits": {"type": ["integer", "null"]},
            "percent": {"type": "integer"},
            "created_at": _TIME,
            "started_at": _TIME,
            "ended_at": _TIME,
            "depends_on_task_ids": {"type": "array", "items": {"type": "string"}},
            "depends_on_tasks": {"type": "object", "additionalProperties": {"type": "string"}},
            "retry_of_task_id": _NULLABLE_STRING,
            "copy_of_task_id": _NULLABLE_STRING,
            "retries": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}},
            "engine": _NULLABLE_STRING,
            "engine_version": _NULLABLE_STRING,
            "region": _NULLABLE_STRING,
            "user_id": {"type": "integer"},
            "priority": {"type": ["integer", "null"]},
            "host_name": _NULLABLE_STRING,
            "storage": _NULLABLE_STRING,
            "payload": {"type": "object", "description": "Only with include=payload; credentials hidden."},
            "job": {"$ref": "#/components/schemas/Job"},
            "result": {
                "type": ["object", "null"],
                "properties": {
                    "files": {
                        "type": "array",
                        "items": {"type": "object", "required": ["filename"]},
                    },
                    "form": {
                        "type": "object",
                        "required": ["url", "parameters"],
                        "properties": {
                            "url": {"type": "string"},
                            "parameters": {
                                "type": "object",
                                "additionalProperties": {"type": ["string", "integer"]},
                            },
                        },
                    },
                },
            },
            "links": _LINKS,
        },
    }


def _job() -> Schema:
    return {
        "type": "object",
        "required": ["id", "status", "created_at", "links"],
        "properties": {
            "id": {"type": "string"},
            "tag": _NULLABLE_STRING,
            "status": {"enum": ["waiting", "processing", "finished", "error"]},
            "created_at": _TIME,
            "started_at": _TIME,
            "ended_at": _TIME,
            "tasks": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}},
            "links": _LINKS,
        },
    }


def _job_body(operations: list[str]) -> Schema:
    return {
        "type": "object",
        "required": ["tasks"],
        "properties": {
            "tasks": {
                "type": "object",
                "minProperties": 1,
                "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
                "additionalProperties": {"oneOf": [job_task_ref(op) for op in operations]},
                "description": "Task name to task; input refers to task names.",
            },
            "tag": {"type": "string"},
            "ignore_error": {"type": "boolean"},
            "webhook_url": {"type": "string", "pattern": "^https?://", "description": "A one-off webhook."},
            "webhook_signing_secret": {"type": "string"},
            "redirect": {"type": "boolean", "description": "Sync creation only: 302 to the export file."},
        },
    }


def _list(item: str) -> Schema:
    link = {"type": ["string", "null"]}
    count = {"type": ["integer", "null"]}
    return {
        "type": "object",
        "required": ["data", "links", "meta"],
        "properties": {
            "data": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}},
            "links": {
                "type": "object",
                "required": ["first", "last", "prev", "next"],
                "properties": {"first": link, "last": link, "prev": link, "next": link},
            },
            "meta": {
                "type": "object",
                "required": ["current_page", "per_page", "path"],
                "properties": {
                    "current_page": {"type": "integer"},
                    "from": count,
                    "to": count,
                    "per_page": {"type": "integer"},
                    "path": {"type": "string"},
                },
            },
        },
    }


def _one(item: str) -> Schema:
    return {
        "type": "object",
        "required": ["data"],
        "properties": {"data": {"$ref": f"#/components/schemas/{item}"}},
    }


def _resources() -> dict[str, Schema]:
    string, integer, boolean = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
    return {
        "Task": _task(),
        "Job": _job(),
        "User": {
            "type": "object",
            "required": ["id", "username", "email", "credits", "links"],
            "properties": {
                "id": integer,
                "username": string,
                "email": string,
                "credits": integer,
                "created_at": string,
                "links": _LINKS,
            },
        },
        "Webhook": {
            "type": "object",
            "required": ["id", "url", "events", "signing_secret", "links"],
            "properties": {
                "id": integer,
                "url": string,
                "events": {"type": "array", "items": string},
                "disabled": boolean,
                "failing": boolean,
                "last_error_at": _TIME,
                "last_response_code": {"type": ["string", "integer", "null"]},
                "signing_secret": string,
                "created_at": string,
                "updated_at": string,
                "links": _LINKS,
            },
        },
        "WebhookBody": {
            "type": "object",
            "required": ["url", "events"],
            "properties": {
                "url": {"type": "string", "pattern": "^https?://"},
                "events": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"enum": ["job.created", "job.finished", "job.failed"]},
                },
            },
        },
        "Operation": {
            "type": "object",
            "required": ["operation", "input_format", "output_format", "engine", "credits"],
            "properties": {
                "operation": string,
                "input_format": string,
                "output_format": string,
                "engine": string,
                "credits": integer,
                "deprecated": boolean,
                "experimental": boolean,
                "meta": {"type": "object"},
                "options": {"type": "array", "items": {"type": "object", "required": ["name", "type"]}},
                "engine_versions": {"type": "array", "items": {"type": "object", "required": ["version"]}},
            },
        },
        "Error": {
            "type": "object",
            "required": ["message", "code"],
            "properties": {"message": string, "code": string},
        },
        "InvalidData": {
            "type": "object",
            "required": ["message", "code", "errors"],
            "properties": {
                "message": string,
                "code": {"const": "INVALID_DATA"},
                "errors": {"type": "object", "additionalProperties": {"type": "array", "items": string}},
            },
        },
    }


def _sync_wait(item: str) -> Schema:
    """The 409 body of a sync wait that reached its bound: the error and the item as it is now."""
    return {
        "type": "object",
        "required": ["message", "code", "data"],
        "properties": {
            "message": {"type": "string"},
            "code": {"const": "SYNC_WAIT_TIMEOUT"},
            "data": {"$ref": f"#/components/schemas/{item}"},
        },
    }


def components(operations: list[str], standalone: list[str]) -> dict[str, Schema]:
    """Every schema the paths refer to, keyed by component name."""
    out = _resources()
    out["JobBody"] = _job_body(operations)
    out["JobAnswer"], out["TaskAnswer"] = _one("Job"), _one("Task")
    out["SyncWaitJob"], out["SyncWaitTask"] = _sync_wait("Job"), _sync_wait("Task")
    out["UserAnswer"], out["WebhookAnswer"] = _one("User"), _one("Webhook")
    out["JobList"], out["TaskList"], out["WebhookList"] = _list("Job"), _list("Task"), _list("Webhook")
    out["OperationList"] = {
        "type": "object",
        "required": ["data"],
        "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Operation"}}},
    }
    for op in operations:
        out[_component_name(op, False)] = _loaded(op)
    for op in standalone:
        out[_component_name(op, True)] = _standalone(op)
    return out
