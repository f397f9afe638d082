"""GET /v2/operations and /v2/convert/formats, generated from the engines present on this machine.

Without ``alternatives=true`` only the default engine (the first in the registry) of each
(operation, input_format, output_format) is listed. No authentication is needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from mcv_pipelines.service.engines.base import ConversionType, Engine
from mcv_pipelines.service.http.context import context

__all__ = ["convert_formats", "describe", "list_operations", "operations"]

_FILTERS = ("operation", "input_format", "output_format", "engine", "engine_version")


def describe(kind: ConversionType, include: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operation": kind.operation,
        "input_format": kind.input_format,
        "output_format": kind.output_format,
        "engine": kind.engine,
        "credits": kind.credits,
        "deprecated": kind.deprecated,
        "experimental": kind.experimental,
        "meta": dict(kind.meta),
    }
    include = set(include)
    if "options" in include:
        out["options"] = [
            {
                "name": o.name,
                "type": o.type,
                "default": o.default,
                **({"possible_values": list(o.possible_values)} if o.possible_values is not None else {}),
                **({"description": o.description} if o.description else {}),
            }
            for o in kind.options
        ]
    if "engine_versions" in include:
        out["engine_versions"] = [
            {
                "version": v.version,
                "default": v.default,
                "latest": v.latest,
                "deprecated": v.deprecated,
                "experimental": v.experimental,
            }
            for v in kind.engine_versions
        ]
    return out


def operations(
    engines: Sequence[Engine], filters: dict[str, str], alternatives: bool, include: Iterable[str]
) -> list[dict[str, Any]]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for engine in engines:
        for kind in engine.conversion_types():
            key = (kind.operation, kind.input_format, kind.output_format)
            if key in seen and not alternatives:
                continue
            seen.add(key)
            if not _matches(kind, filters):
                continue
            out.append(describe(kind, include))
    return out


def _matches(kind: ConversionType, filters: dict[str, str]) -> bool:
    for name, wanted in filters.items():
        if name == "engine_version":
            if wanted not in {v.version for v in kind.engine_versions}:
                return False
        elif str(getattr(kind, name)).lower() != wanted.lower():
            return False
    return True


def _query(request: Request) -> tuple[dict[str, str], bool, list[str]]:
    params = request.query_params
    filters = {name: params[f"filter[{name}]"] for name in _FILTERS if params.get(f"filter[{name}]")}
    alternatives = (params.get("alternatives") or params.get("alternative") or "").lower() in ("1", "true")
    include = [
        p.strip()
        for value in params.getlist("include") + params.getlist("include[]")
        for p in value.split(",")
        if p.strip()
    ]
    return filters, alternatives, include


async def list_operations(request: Request) -> JSONResponse:
    filters, alternatives, include = _query(request)
    return JSONResponse({"data": operations(context(request).engines, filters, alternatives, include)})


async def convert_formats(request: Request) -> JSONResponse:
    filters, alternatives, include = _query(request)
    filters["operation"] = "convert"
    return JSONResponse({"data": operations(context(request).engines, filters, alternatives, include)})
