"""Building blocks of the OpenAPI document: answers, error answers, parameters, operations."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ERRORS",
    "FLAG",
    "INCLUDE",
    "LISTING",
    "PAGING",
    "RATE_HEADERS",
    "REDIRECT",
    "SEQ_BOUND",
    "TO_EXPORT",
    "Obj",
    "answer",
    "body",
    "errors",
    "json_content",
    "operation",
    "param",
    "path_id",
    "sync_timeout",
]

Obj = dict[str, Any]

RATE_HEADERS: Obj = {
    "X-RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Creations allowed per period."},
    "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Creations left now."},
}


def json_content(schema: str) -> Obj:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def answer(description: str, schema: str | None = None, headers: Obj | None = None) -> Obj:
    out: Obj = {"description": description}
    if schema is not None:
        out["content"] = json_content(schema)
    if headers:
        out["headers"] = headers
    return out


ERRORS: dict[str, Obj] = {
    "401": answer("No valid API key (UNAUTHENTICATED).", "Error"),
    "403": answer("The key lacks the scope, or a signature is not valid or has expired.", "Error"),
    "404": answer("No such resource for this key (NOT_FOUND).", "Error"),
    "409": answer("The upload task is no longer waiting (TASK_NOT_WAITING).", "Error"),
    "402": answer("The account has no credits left (CREDITS_EXCEEDED).", "Error"),
    "413": answer("The file is larger than the form's max_file_size (FILE_TOO_LARGE).", "Error"),
    "422": answer(
        "Invalid data (INVALID_DATA), with messages per field. A body valid by this document is also "
        "refused when it names a task that does not exist (a job task's input or image naming no task of "
        "the job; a standalone task's input naming no task of yours): no schema can list the tasks that "
        "exist, so this answer, not the schema, is where that rule shows.",
        "InvalidData",
    ),
    "429": answer(
        "Too many creations (TOO_MANY_REQUESTS).",
        "Error",
        {"Retry-After": {"required": True, "schema": {"type": "integer"}}, **RATE_HEADERS},
    ),
}


def sync_timeout(what: str) -> Obj:
    """The 409 of a sync request that waited the longest it may (``mcv serve --sync-max-wait``)."""
    return {
        "409": answer(
            f"The {what} has not ended within the longest a sync request waits (50 s unless the service "
            f"was started with another --sync-max-wait): SYNC_WAIT_TIMEOUT, with a message naming the "
            f"{what} and what it still waits for, and the {what} as it is now in data. Ask again, or poll.",
            "SyncWaitJob" if what == "job" else "SyncWaitTask",
        )
    }


def errors(*codes: str) -> Obj:
    return {code: ERRORS[code] for code in codes}


def param(name: str, where: str, schema: Obj, description: str = "", required: bool = False) -> Obj:
    out: Obj = {"name": name, "in": where, "schema": schema, "required": required or where == "path"}
    if description:
        out["description"] = description
    return out


def path_id(name: str) -> Obj:
    return param(name, "path", {"type": "string"})


PAGING = [
    param("page", "query", {"type": "integer", "minimum": 1, "maximum": 10**9}, "Page number, from 1."),
    param(
        "per_page",
        "query",
        {"type": "integer", "minimum": 1, "maximum": 1000},
        "Items per page (100); at most 1000 (the spec shows no maximum, this service keeps one).",
    ),
]
# Job and task lists: links.next carries it; a page then costs the same however deep it is.
SEQ_BOUND = param(
    "seq_below",
    "query",
    {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    "Where the previous page ended, as its links.next says; without it the page number alone is used.",
)
INCLUDE = param(
    "include", "query", {"type": "string"}, "Comma-separated: retries, depends_on_tasks, payload, job."
)
# Flags are read as text: true or 1 turns them on, any other value leaves them off.
FLAG = {"type": "string", "examples": ["true", "false"]}
REDIRECT = param("redirect", "query", FLAG, "true: answer 302 to the first export URL.")
LISTING = [
    *(
        param(f"filter[{name}]", "query", {"type": "string"})
        for name in ("operation", "input_format", "output_format", "engine", "engine_version")
    ),
    param("alternatives", "query", FLAG, "true: list alternative engines too."),
    param("include", "query", {"type": "string"}, "Comma-separated: options, engine_versions."),
]
TO_EXPORT: Obj = {
    "description": "The job has an export file: redirect to it.",
    "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
}


def operation(op_id: str, summary: str, tag: str, ok: Obj, *, scope: str | None, **more: Any) -> Obj:
    """One operation; ``scope`` None means no authentication (listings, upload form, files)."""
    out: Obj = {"operationId": op_id, "summary": summary, "tags": [tag], **more}
    out["responses"] = {**ok, **out.get("responses", {})}
    if scope is None:
        out["security"] = []
    else:
        out["description"] = f"Needs an API key with the scope {scope}."
        out["responses"] = {**out["responses"], **errors("401", "403")}
        for answer in ok.values():
            answer.setdefault("headers", dict(RATE_HEADERS))
    return out


def body(schema: Obj, required: bool = True) -> Obj:
    """A JSON body; one that is not required may be left out (the service reads it as {})."""
    return {"required": required, "content": {"application/json": {"schema": schema}}}
