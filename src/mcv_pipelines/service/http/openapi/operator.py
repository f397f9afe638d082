"""The OpenAPI paths beside the conversion interface: the operator's probes (/healthz, /readyz) and the
web console's pages and its three API calls (the console's own calls go through the same keys and
scopes as every other client)."""

from __future__ import annotations

from mcv_pipelines.service.http.openapi.parts import Obj, body, errors, operation, path_id

__all__ = ["console_paths", "operator_paths"]

_READINESS: Obj = {
    "type": "object",
    "required": ["status", "checks", "failed"],
    "properties": {
        "status": {"enum": ["ok", "unavailable"]},
        "checks": {
            "type": "object",
            "description": "Each check (database, storage) and whether it passed.",
            "additionalProperties": {"enum": ["ok", "failed"]},
        },
        "failed": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["check", "reason"],
                "properties": {"check": {"type": "string"}, "reason": {"type": "string"}},
            },
        },
    },
}


def _json(description: str, schema: Obj) -> Obj:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _text(description: str, media: str) -> Obj:
    return {"description": description, "content": {media: {"schema": {"type": "string"}}}}


def operator_paths() -> Obj:
    return {
        "/healthz": {
            "get": operation(
                "healthz",
                "Liveness: the process answers",
                "operations",
                {
                    "200": _json(
                        "Alive, and the version of mcv serving (what `mcv doctor` shows).",
                        {
                            "type": "object",
                            "properties": {"status": {"const": "ok"}, "version": {"type": "string"}},
                        },
                    )
                },
                scope=None,
            )
        },
        "/readyz": {
            "get": operation(
                "readyz",
                "Readiness: the database and the file store answer",
                "operations",
                {
                    "200": _json("Ready.", _READINESS),
                    "503": _json("Not ready: `failed` names each check and why.", _READINESS),
                },
                scope=None,
            )
        },
    }


def console_paths() -> Obj:
    page = _text("The console's page (it asks for the API key itself).", "text/html")
    moved = {
        "description": "The console lives at /console/.",
        "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
    }
    check_body = {
        "type": "object",
        "required": ["text"],
        "properties": {
            "text": {"type": "string", "description": "The pipeline's YAML."},
            "name": {"type": "string", "description": "Its file name, for locations (pipeline.yaml)."},
            "params": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
            "run": {"type": "boolean", "description": "true: every param must have a value."},
        },
    }
    checked = {
        "type": "object",
        "required": ["ok", "diagnostics", "params"],
        "properties": {
            "ok": {"type": "boolean"},
            "diagnostics": {"type": "array", "items": {"type": "object"}},
            "params": {"type": "array", "items": {"type": "object"}},
            "body": {"type": "object", "description": "The job body `mcv render` prints."},
            "graph": {"type": "object"},
            "uploads": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    scopes = {
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {
                "type": "object",
                "required": ["scopes"],
                "properties": {"scopes": {"type": "array", "items": {"type": "string"}}},
            }
        },
    }
    return {
        "/console": {
            "get": operation("consoleRedirect", "The console", "console", {"308": moved}, scope=None)
        },
        "/console/": {"get": operation("consolePage", "The console", "console", {"200": page}, scope=None)},
        "/console/static/{name}": {
            "parameters": [path_id("name")],
            "get": operation(
                "consoleAsset",
                "A script or style sheet of the console",
                "console",
                {"200": {"description": "The file.", "content": {"*/*": {"schema": {}}}}},
                scope=None,
                responses=errors("404"),
            ),
        },
        "/console/api/events": {
            "get": operation(
                "consoleEvents",
                "Server-Sent Events: the key's job and task changes, as they happen",
                "console",
                {
                    "200": _text(
                        "An endless event stream (`ready`, then `change` events).", "text/event-stream"
                    )
                },
                scope="task.read",
                parameters=[{"name": "job", "in": "query", "required": False, "schema": {"type": "string"}}],
                responses=errors("404"),
            )
        },
        "/console/api/check": {
            "post": operation(
                "consoleCheck",
                "Check a pipeline as `mcv validate` does; its job body and graph",
                "console",
                {"200": _json("The diagnostics, params, and when sound the body and graph.", checked)},
                scope="task.read",
                requestBody=body(check_body),
                responses=errors("422"),
            )
        },
        "/console/api/key": {
            "get": operation(
                "consoleKey",
                "The scopes of the caller's key",
                "console",
                {"200": _json("The scopes this key holds.", scopes)},
                scope=None,
                responses=errors("401"),
            )
        },
    }
