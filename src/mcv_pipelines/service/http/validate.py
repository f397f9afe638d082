"""Validation of request bodies: a job's task graph and each task's parameters.

Every problem is collected under its field path (``tasks.resize.input``) and answered together as one
422 INVALID_DATA, so a caller fixes a body in one round.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcv_pipelines.service.http.body_schema import schema_errors
from mcv_pipelines.service.http.errors import InvalidData
from mcv_pipelines.service.state.tasks import input_names

__all__ = [
    "EMBEDDED_LIMIT",
    "IMPORTS",
    "OPERATIONS",
    "validate_job",
    "validate_task",
]

EMBEDDED_LIMIT = 10 * 1024 * 1024  # import/base64 and import/raw
NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP header name (RFC 9110 token)

# operation -> required parameters (besides input, which processing and export tasks need)
IMPORTS: dict[str, tuple[str, ...]] = {
    "import/url": ("url",),
    "import/upload": (),
    "import/base64": ("file", "filename"),
    "import/raw": ("file", "filename"),
    "import/s3": ("bucket", "region", "access_key_id", "secret_access_key"),
    "import/azure/blob": ("storage_account", "container"),
    "import/google-cloud-storage": ("project_id", "bucket", "client_email", "private_key"),
    "import/sftp": ("host", "username"),
    "import/openstack": ("auth_url", "username", "password", "region", "container"),
}
_WITH_INPUT: dict[str, tuple[str, ...]] = {
    "export/url": (),
    "export/s3": ("bucket", "region", "access_key_id", "secret_access_key"),
    "export/azure/blob": ("storage_account", "container"),
    "export/google-cloud-storage": ("project_id", "bucket", "client_email", "private_key"),
    "export/upload": ("url",),
    "export/sftp": ("host", "username"),
    "export/openstack": ("auth_url", "username", "password", "region", "container"),
    "convert": ("output_format",),
    "thumbnail": ("output_format",),
    "optimize": (),
    "merge": ("output_format",),
    "archive": ("output_format",),
    "command": ("engine", "command"),
    "watermark": (),
    "metadata": (),
    "metadata/write": (),
}
# Storage operations name one object or a prefix (several objects).
_ONE_OR_MANY = {
    "import/s3": ("key", "key_prefix"),
    "export/s3": ("key", "key_prefix"),
    "import/azure/blob": ("blob", "blob_prefix"),
    "export/azure/blob": ("blob", "blob_prefix"),
    "import/google-cloud-storage": ("file", "file_prefix"),
    "export/google-cloud-storage": ("file", "file_prefix"),
    "import/sftp": ("file", "path"),
    "export/sftp": ("file", "path"),
    "import/openstack": ("file", "file_prefix"),
    "export/openstack": ("file", "file_prefix"),
}
_NO_INPUT: dict[str, tuple[str, ...]] = {"capture-website": ("url", "output_format")}
OPERATIONS: dict[str, tuple[str, ...]] = {**IMPORTS, **_WITH_INPUT, **_NO_INPUT}

_STRINGS = (
    "filename",
    "output_format",
    "input_format",
    "engine",
    "engine_version",
    "url",
    "file",
    "command",
    "arguments",
    "redirect",
)


def _is_port(value: Any) -> bool:
    text = str(value).strip()
    return (
        not isinstance(value, bool)
        and isinstance(value, int | str)
        and text.isdigit()
        and 0 < int(text) < 65536
    )


def validate_task(
    task: Mapping[str, Any], prefix: str = "", *, need_operation: bool = True
) -> dict[str, list[str]]:
    """Check one task's parameters; returns {field path: [messages]} (empty when valid)."""
    errors: dict[str, list[str]] = {}

    def add(name: str, message: str) -> None:
        errors.setdefault(prefix + name, []).append(message)

    operation = task.get("operation")
    if not isinstance(operation, str) or not operation:
        if need_operation:
            add("operation", "The operation field is required.")
        return errors
    if operation not in OPERATIONS:
        add("operation", f"The operation {operation!r} is unknown; known: {', '.join(sorted(OPERATIONS))}.")
        return errors
    for name in OPERATIONS[operation]:
        if task.get(name) in (None, ""):
            add(name, f"The {name} field is required.")
    if operation in _WITH_INPUT:
        refs = input_names(task.get("input"))
        if task.get("input") in (None, "", []):
            add("input", "The input field is required.")
        elif not refs or len(refs) != len(task["input"] if isinstance(task["input"], list) else [1]):
            add("input", "The input must be a task name or a list of task names.")
        elif operation == "merge" and len(refs) < 2:
            add("input", "merge needs at least two input tasks.")
    elif "input" in task and operation in IMPORTS:
        add("input", f"{operation} takes no input.")
    named = _ONE_OR_MANY.get(operation)
    if named is not None and all(task.get(name) in (None, "") for name in named):
        add(named[0], f"{named[0]} or {named[1]} is required.")
    port = task.get("port")
    if operation.endswith("/sftp") and port is not None and not _is_port(port):
        add("port", "The port must be a number from 1 to 65535 (or a string of one).")
    for name in ("metadata", "tagging"):
        value = task.get(name)
        if operation in _ONE_OR_MANY and value is not None and not isinstance(value, dict):
            add(name, f"The {name} must be an object of names to values.")
    if operation.endswith("/azure/blob") and not (task.get("storage_access_key") or task.get("sas_token")):
        add("storage_access_key", "storage_access_key or sas_token is required.")
    for name in _STRINGS:
        if name in task and task[name] is not None and not isinstance(task[name], str):
            add(name, f"The {name} must be a string.")
    url = task.get("url")
    if (
        isinstance(url, str)
        and operation in ("import/url", "capture-website", "export/upload")
        and not re.match(r"^https?://", url)
    ):
        add("url", "The url must be an http or https URL.")
    filename = task.get("filename")
    if isinstance(filename, str) and ("/" in filename or "\\" in filename or filename in (".", "..")):
        add("filename", "The filename must be a plain file name without a directory.")
    if operation in ("import/base64", "import/raw") and isinstance(task.get("file"), str):
        limit = EMBEDDED_LIMIT * (4 / 3 if operation == "import/base64" else 1)
        if len(task["file"]) > limit:
            add("file", "The file may not be greater than 10 MB; use import/upload or import/url.")
    timeout = task.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        add("timeout", "The timeout must be a positive number of seconds.")
    headers = task.get("headers")
    if headers is not None and not (
        isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())
    ):
        add("headers", "The headers must be an object of strings.")
    elif isinstance(headers, dict) and not all(_TOKEN.match(name) for name in headers):
        # HTTP cannot carry other names (the fetch crashed on them); values are the schema's concern.
        add("headers", "Header names may contain only letters, digits and !#$%&'*+.^_`|~-.")
    for flag in ("inline", "archive_multiple_files", "capture_output"):
        if flag in task and not isinstance(task[flag], bool):
            add(flag, f"The {flag} field must be true or false.")
    # The published operation schema too (what the OpenAPI document promises); a field the checks
    # above already faulted keeps their message alone.
    for name, messages in schema_errors(task, prefix).items():
        if name not in errors:
            errors[name] = messages
    return errors


def validate_job(body: Any) -> None:
    """Raise InvalidData unless ``body`` is a valid job: names, operations, references, no cycle."""
    if not isinstance(body, dict):
        raise InvalidData({"body": ["The body must be a JSON object."]})
    errors: dict[str, list[str]] = {}
    tasks = body.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        errors["tasks"] = ["The tasks field is required and must be an object of named tasks."]
        tasks = {}
    for key, kind in (("tag", str), ("webhook_url", str), ("ignore_error", bool), ("redirect", bool)):
        if body.get(key) is not None and not isinstance(body[key], kind):
            errors[key] = [f"The {key} field must be a {'string' if kind is str else 'boolean'}."]
    if isinstance(body.get("webhook_url"), str) and not re.match(r"^https?://", body["webhook_url"]):
        errors["webhook_url"] = ["The webhook_url must be an http or https URL."]
    for name, task in tasks.items():
        prefix = f"tasks.{name}."
        if not NAME.match(name):
            errors.setdefault(f"tasks.{name}", []).append(
                "Task names may contain only letters, digits, '-' and '_'."
            )
        if not isinstance(task, dict):
            errors.setdefault(f"tasks.{name}", []).append("A task must be an object.")
            continue
        for field_name, messages in validate_task(task, prefix).items():
            errors.setdefault(field_name, []).extend(messages)
        for ref_field in ("input", "image"):
            for ref in (
                input_names(task.get(ref_field))
                if ref_field == "input" or task.get("operation") == "watermark"
                else []
            ):
                if ref not in tasks:
                    errors.setdefault(prefix + ref_field, []).append(f"The task {ref!r} does not exist.")
    cycle = _find_cycle({n: input_names(t.get("input")) for n, t in tasks.items() if isinstance(t, dict)})
    if cycle:
        errors.setdefault("tasks", []).append("The inputs form a cycle: " + " -> ".join(cycle) + ".")
    if errors:
        raise InvalidData(errors)


def _find_cycle(graph: Mapping[str, list[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt in graph and nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return None
