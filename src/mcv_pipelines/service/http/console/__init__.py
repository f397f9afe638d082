"""The web console: static pages under /console/ that call the public API with the user's key,
plus three console endpoints (Server-Sent Events of the key's changes, the pipeline checker, the
key's scopes), each authorised like every API call.

``routes()`` is the whole of it; app.py adds these rows to its table in one place.
"""

from __future__ import annotations

from starlette.routing import Route

from mcv_pipelines.service.http.console import checking, events, pages

__all__ = ["routes"]


def routes() -> list[Route]:
    return [
        Route("/console", pages.to_console, methods=["GET"]),
        Route("/console/", pages.index, methods=["GET"]),
        Route("/console/static/{name}", pages.asset, methods=["GET"]),
        Route("/console/api/events", events.stream_changes, methods=["GET"]),
        Route("/console/api/check", checking.check, methods=["POST"]),
        Route("/console/api/key", checking.key_scopes, methods=["GET"]),
    ]
