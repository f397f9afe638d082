"""The OpenAPI document: served at /openapi.json without a key, equal to schemas/openapi.json,
covering every route of the service, and sound (every $ref resolves, every schema compiles)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from starlette.routing import Route

from mcv_pipelines.service.http.app import routes
from mcv_pipelines.service.http.openapi.document import build_document, document_text
from mcv_pipelines.service.http.validate import OPERATIONS as SERVED
from mcv_pipelines.service.server import LocalService

COMMITTED = Path(__file__).resolve().parents[3] / "schemas" / "openapi.json"
OPERATIONS = Path(__file__).resolve().parents[3] / "schemas" / "operations"


def test_served_document_is_the_committed_one(contract_service: LocalService) -> None:
    served = httpx.get(f"{contract_service.base_url}/openapi.json", timeout=30)
    assert served.status_code == 200
    assert served.headers["content-type"] == "application/json"
    assert COMMITTED.read_text(encoding="utf-8") == document_text(), "run scripts/write-openapi.py"
    assert served.json() == json.loads(COMMITTED.read_text(encoding="utf-8"))


def _served_operations() -> set[tuple[str, str]]:
    out = set()
    for route in routes():
        assert isinstance(route, Route), f"{route!r}: describe what it serves in the document"
        methods = set(route.methods or ())
        if "GET" in methods and not route.path.startswith("/files/"):
            methods.discard("HEAD")  # Starlette answers HEAD for every GET; only /files means it
        out |= {(route.path, method.lower()) for method in methods}
    return out


def test_document_describes_every_route_and_nothing_else() -> None:
    paths = build_document()["paths"]
    documented = {(path, method) for path, item in paths.items() for method in item if method != "parameters"}
    served = _served_operations()
    assert served - documented == set(), (
        "add these to service/http/openapi/*.py, then scripts/write-openapi.py"
    )
    assert documented - served == set(), "the document describes what the service does not serve"


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_every_reference_resolves_and_every_schema_compiles() -> None:
    document = build_document()
    for ref in set(_refs(document)):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.rsplit("/", 1)[1] in document["components"]["schemas"], ref
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)
    operation_ids = [
        op["operationId"]
        for item in document["paths"].values()
        for key, op in item.items()
        if key != "parameters"
    ]
    assert len(operation_ids) == len(set(operation_ids))
    assert document["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "Authorization: Bearer <API key>",
    }


def test_every_served_operation_has_its_schema_published() -> None:
    schemas = build_document()["components"]["schemas"]
    assert {name for name in SERVED if "JobTask-" + name.replace("/", "-") not in schemas} == set()


def test_task_bodies_are_the_operation_schemas() -> None:
    schemas = build_document()["components"]["schemas"]
    for path in sorted(OPERATIONS.glob("*.schema.json")):
        shipped = json.loads(path.read_text(encoding="utf-8"))
        if shipped["properties"]["operation"]["const"] not in SERVED:
            continue  # checked by `mcv validate` only (none today: the service runs every operation)
        published = schemas["JobTask-" + path.name.removesuffix(".schema.json")]
        for key in ("$schema", "$id"):
            shipped.pop(key)
        # The one place the service accepts more than the shared schema: fractional timeouts.
        if "timeout" in shipped["properties"]:
            assert published["properties"].pop("timeout")["type"] == "number"
            shipped["properties"].pop("timeout")
        assert published == shipped, path.name
