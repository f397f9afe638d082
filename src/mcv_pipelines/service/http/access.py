"""The access middleware: a request id on every answer, a metric and a log line for every request.

Outermost of the service's middleware, so it sees what the client saw (injected faults included).
The route is the template the request matched (``/v2/jobs/{job_id}``), ``unmatched`` when none did:
never the raw path (ids would make a series per job) and never the query string (download links
carry signatures).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Sequence

from starlette.requests import Request
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcv_pipelines.service.http.logs import log_request
from mcv_pipelines.service.http.metrics import Metrics

__all__ = ["REQUEST_ID_KEY", "USER_ID_KEY", "AccessLog", "request_id_of"]

REQUEST_ID_KEY = "mcv_request_id"  # request.state attribute: this request's id
USER_ID_KEY = "mcv_user_id"  # request.state attribute: the caller's user id, once authenticated
_HEADER = b"x-request-id"
# An incoming id is kept only when it is short and plain: it goes into headers and log lines.
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def request_id_of(request: Request) -> str | None:
    value = getattr(request.state, REQUEST_ID_KEY, None)
    return str(value) if value is not None else None


class AccessLog:
    """Pure ASGI middleware; ``routes`` is the app's route table, for route templates."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = list(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = _incoming_id(scope) or uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state[REQUEST_ID_KEY] = request_id
        status = 500  # what the client gets when the app raises before answering

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers", []))
                if not any(name.lower() == _HEADER for name, _ in headers):
                    headers.append((_HEADER, request_id.encode()))
                    message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            method = str(scope.get("method", ""))
            route = self._template(scope)
            self.metrics.observe_request(method, route, status, seconds)
            user_id = state.get(USER_ID_KEY)
            log_request(method, route, status, seconds, request_id, user_id)

    def _template(self, scope: Scope) -> str:
        matched = scope.get("route")  # set by Starlette's router when the request got that far
        if matched is None:  # answered before routing (an injected fault): match it here
            partial = None
            for route in self.routes:
                match, _ = route.matches(scope)
                if match == Match.FULL:
                    matched = route
                    break
                if match == Match.PARTIAL and partial is None:
                    partial = route
            matched = matched or partial
        path = getattr(matched, "path", None)
        return str(path) if path else "unmatched"


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == _HEADER:
            text = value.decode("latin-1")
            return text if _SANE_ID.fullmatch(text) else None
    return None
