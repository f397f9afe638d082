"""The pipeline page's checker: the one ``mcv validate`` uses (pipeline.check), called on posted text.

``POST /console/api/check`` ``{"text": YAML, "name": "file.yaml", "params": {...}, "run": false}``
answers the diagnostics (line:column), the job body, the task graph, the params to fill and the
upload tasks. With ``run`` false, params without a value take their examples (as validate does);
with ``run`` true they must be given (as ``mcv run`` wants). The service's own environment is never
read: ``env()`` and ``secret()`` see an empty one, so a posted template cannot read the server's
variables; and a posted param declared secret is not registered with ``redact`` (it is the caller's).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.snapshot import select_catalog
from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.errors import InvalidInput
from mcv_pipelines.pipeline.check import CheckResult, check_document
from mcv_pipelines.pipeline.document import parse_document
from mcv_pipelines.redact import not_registering
from mcv_pipelines.service.http.auth import authorize
from mcv_pipelines.service.http.errors import ApiError, InvalidData
from mcv_pipelines.service.http.request_utils import json_body
from mcv_pipelines.service.state.config import ALL_SCOPES

__all__ = ["MAX_TEXT", "check", "check_text", "key_scopes"]

MAX_TEXT = 512 * 1024  # a pipeline is a page of YAML; this bounds the work one request can ask for
_PARAM_REF = re.compile(r"params\.([A-Za-z_][A-Za-z0-9_]*)")
_catalog_lock = threading.Lock()
_catalog: list[Catalog | None] = []


def _default_catalog() -> Catalog | None:
    """The catalog `mcv validate` checks against by default, loaded once."""
    with _catalog_lock:
        if not _catalog:
            _catalog.append(select_catalog(None)[0])
        return _catalog[0]


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    where = d.location
    return {
        "rule": d.rule,
        "severity": str(d.severity),
        "message": d.message,
        "hint": d.hint,
        "line": where.line if where else None,
        "column": where.column if where else None,
    }


def _params(data: Any) -> list[dict[str, Any]]:
    """The declared params, marking those an upload_from names (the page offers a file picker)."""
    if not isinstance(data, Mapping):
        return []
    declared = data.get("params")
    tasks = data.get("tasks")
    files: set[str] = set()
    if isinstance(tasks, Mapping):
        for task in tasks.values():
            source = task.get("upload_from") if isinstance(task, Mapping) else None
            if isinstance(source, str):
                files.update(_PARAM_REF.findall(source))
    if not isinstance(declared, Mapping):
        return []
    out = []
    for name, spec in declared.items():
        spec = spec if isinstance(spec, Mapping) else {}
        out.append(
            {
                "name": str(name),
                "type": spec.get("type"),
                "description": spec.get("description"),
                "default": spec.get("default"),
                "example": spec.get("example"),
                "enum": spec.get("enum"),
                "file": name in files,
            }
        )
    return out


def check_text(text: str, name: str, values: Mapping[str, Any], run: bool) -> dict[str, Any]:
    """Check ``text`` as the pipeline file ``name``; the console's answer as a dict."""
    try:
        document = parse_document(text.encode(), name)
    except InvalidInput as exc:
        return {"ok": False, "diagnostics": [_diagnostic(d) for d in exc.diagnostics], "params": []}
    # The values are the caller's own (they typed them): a param declared secret must not become
    # a string the service's log masks for everyone, nor grow the process's list of secrets.
    with not_registering():
        result: CheckResult = check_document(
            document,
            values,
            source="the console form",
            use_examples=not run,
            environ={},
            catalog=_default_catalog(),
        )
    answer: dict[str, Any] = {
        "ok": result.ok,
        "diagnostics": [_diagnostic(d) for d in result.diagnostics],
        "params": _params(document.data),
    }
    pipeline = result.pipeline
    if pipeline is not None:
        answer["body"] = pipeline.job_body()
        answer["graph"] = {
            "nodes": [{"name": t.name, "operation": t.operation} for t in pipeline.tasks.values()],
            "edges": [[source, t.name] for t in pipeline.tasks.values() for source in t.input_names],
        }
        answer["uploads"] = {t.name: t.upload_from for t in pipeline.tasks.values() if t.upload_from}
    return answer


def _plain(params: Any) -> bool:
    return isinstance(params, dict) and all(isinstance(v, str | int | float | bool) for v in params.values())


async def check(request: Request) -> Response:
    authorize(request, "task.read")  # no anonymous surface: the console checks for a key holder
    body = await json_body(request)
    text, params = body.get("text"), body.get("params", {})
    errors: dict[str, list[str]] = {}
    if not isinstance(text, str):
        errors["text"] = ["The text field is required: the pipeline's YAML."]
    elif len(text) > MAX_TEXT:
        errors["text"] = [f"The pipeline is longer than {MAX_TEXT} characters."]
    if not _plain(params):
        errors["params"] = ["The params field must map names to plain values."]
    if not isinstance(body.get("run", False), bool):
        errors["run"] = ["The run field must be true or false."]
    if not isinstance(body.get("name", ""), str):
        errors["name"] = ["The name field must be a file name."]
    if errors or not isinstance(text, str):
        raise InvalidData(errors)
    name = PurePath(str(body.get("name") or "pipeline.yaml")).name or "pipeline.yaml"
    values = {str(k): v for k, v in params.items() if v != ""}
    answer = await asyncio.to_thread(check_text, text, name, values, bool(body.get("run")))
    return JSONResponse(answer)


async def key_scopes(request: Request) -> Response:
    """The scopes of the caller's key, found by asking the same ``authorize`` every route asks."""
    held = []
    for scope in ALL_SCOPES:
        try:
            authorize(request, scope)  # 401 (no valid key) propagates: the page logs out
        except ApiError as exc:
            if exc.status != 403:
                raise
        else:
            held.append(scope)
    return JSONResponse({"data": {"scopes": held}})
