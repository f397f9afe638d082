"""GET /v2/operations and /v2/convert/formats, generated from the engines present on this machine.

Without ``alternatives=true`` only the default engine (the first in the registry) of each
(operation, input_format, output_format) is listed. No authentication is needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mcv_pipelines.service.engines.base import ConversionType, Engine
from mcv_pipelines.service.http.context import context

__all__ = ["convert_formats", "describe", "list_operations", "operations"]

_FILTERS = ("operation", "input_format", "output_format", "engine", "engine_version")
_INCLUDES = frozenset({"options", "engine_versions"})  # what describe() can add to an entry
# Bodies kept per query (the listing route needs no key, so both bounds hold whatever is asked):
_CACHED_LISTINGS = 256
_CACHED_BYTES = 32 * 1024**2  # the full listing with options is some 1.5 MB


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


async def list_operations(request: Request) -> Response:
    filters, alternatives, include = _query(request)
    return await _listing(request, filters, alternatives, include)


async def convert_formats(request: Request) -> Response:
    filters, alternatives, include = _query(request)
    filters["operation"] = "convert"
    return await _listing(request, filters, alternatives, include)


async def _listing(
    request: Request, filters: dict[str, str], alternatives: bool, include: list[str]
) -> Response:
    """The listing's body, made once per query for the service's life: the engines are fixed once it
    starts. The full listing (~1.5 MB, some 90 ms of CPU) is made off the event loop, which would
    otherwise hold every other request for that long."""
    ctx = context(request)
    # One key per different answer: filters match case aside (but the engine version), and an
    # include that adds nothing is no include.
    filters = {name: value if name == "engine_version" else value.lower() for name, value in filters.items()}
    include = sorted(_INCLUDES.intersection(include))
    key = (tuple(sorted(filters.items())), alternatives, tuple(include))
    body = ctx.listings.get(key)
    if body is None:
        body = await run_in_threadpool(_render, ctx.engines, filters, alternatives, include)
        _keep(ctx.listings, key, body)
    return Response(body, media_type="application/json")


def _keep(kept: dict[tuple[object, ...], bytes], key: tuple[object, ...], body: bytes) -> None:
    """Keep ``body``, dropping the oldest bodies to stay within both bounds."""
    if len(body) > _CACHED_BYTES:
        return
    held = sum(len(value) for value in kept.values())
    while kept and (len(kept) >= _CACHED_LISTINGS or held + len(body) > _CACHED_BYTES):
        held -= len(kept.pop(next(iter(kept))))
    kept[key] = body


def _render(
    engines: Sequence[Engine], filters: dict[str, str], alternatives: bool, include: list[str]
) -> bytes:
    return bytes(JSONResponse({"data": operations(engines, filters, alternatives, include)}).body)
