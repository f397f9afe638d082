"""The service's contract as an OpenAPI 3.1 document, built from the route table's operations.

Served at ``GET /openapi.json`` and committed as schemas/openapi.json (``scripts/write-openapi.py``
writes it; a test checks the two agree). It says what the service does, errors included: 401/403
for a missing key or scope, 404 for another user's or a missing resource, 422 ``INVALID_DATA`` with
per-field messages, 429 with Retry-After on creation.
"""

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from mcv_pipelines.service.http.openapi.account import account_paths, open_paths
from mcv_pipelines.service.http.openapi.links import with_links
from mcv_pipelines.service.http.openapi.operator import console_paths, operator_paths
from mcv_pipelines.service.http.openapi.schemas import components
from mcv_pipelines.service.http.openapi.work import jobs_paths, tasks_paths
from mcv_pipelines.service.http.routes_tasks import STANDALONE
from mcv_pipelines.service.http.validate import OPERATIONS

__all__ = ["build_document", "document_text", "openapi_json"]


def build_document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document (no servers: point a client at the address of ``mcv serve``)."""
    operations = list(OPERATIONS)
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "mcv local media conversion service",
            "version": "2",
            "description": "The v2 media conversion interface as `mcv serve` implements it.",
        },
        "security": [{"bearer": []}],
        "paths": {
            **jobs_paths(),
            **tasks_paths(),
            **account_paths(),
            **open_paths(),
            **operator_paths(),
            **console_paths(),
        },
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
