"""API keys with scopes: 401 without a valid key, 403 without the scope; each with a JSON body."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from mcv_pipelines.service.http.access import USER_ID_KEY
from mcv_pipelines.service.http.context import context
from mcv_pipelines.service.http.errors import ApiError
from mcv_pipelines.service.http.ratelimit import RATE_KEY

__all__ = ["Caller", "authorize"]


@dataclass(frozen=True)
class Caller:
    user_id: int
    key: str
    scopes: frozenset[str]


def authorize(request: Request, scope: str) -> Caller:
    """The caller of this request, who must hold ``scope``."""
    header = request.headers.get("authorization", "")
    kind, _, key = header.partition(" ")
    ctx = context(request)
    found = ctx.store.find_key_record(key.strip()) if kind.lower() == "bearer" and key else None
    if found is None:
        raise ApiError(401, "UNAUTHENTICATED", "Unauthenticated: send Authorization: Bearer <API key>.")
    user_id, scopes, rate_limit = found
    ctx.limiter.set_limit(key.strip(), rate_limit)
    setattr(request.state, USER_ID_KEY, user_id)
    setattr(request.state, RATE_KEY, key.strip())
    if scope not in scopes:
        raise ApiError(403, "FORBIDDEN", f"Invalid scope(s) provided: this request needs {scope}.")
    return Caller(user_id, key.strip(), scopes)
