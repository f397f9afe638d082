"""The conversion service: the embedded local one of `mcv run`, `mcv serve`, and a team's API and
worker processes on PostgreSQL and S3 (the same code).

The map, top to bottom (a layer imports only the layers below it; tests/unit/layout checks this):

    server.py   LocalService: wires the layers together, runs uvicorn in a thread (the composition root)
    http/       the Starlette app: routes, request validation, keys and rate limits, uploads, downloads,
                access log, health, metrics, openapi/, console/
    work/       running tasks: schedulers (one process, or leased across processes), deadlines,
                operations (imports, exports, engines), progress, webhooks
    files/      storage/ (a directory or S3), safe names, signed links
    state/      the store over database/ (SQLite or PostgreSQL), accounts and keys, the change feed,
                settings (config) and the data directory
    engines/    the engine contract, registry, process running and sealing, options; one folder per family

A request: http.app routes it -> http.auth checks the key -> http.validate checks the body -> a route
(http.routes_jobs) stores the job and its tasks (state.store) -> hands them to the scheduler (work).
A task: work.scheduler starts it when its inputs ended -> work.taskfiles fetches the inputs
(files.storage) -> work.operations runs the engine that engines.lookup finds -> the outputs are
published to storage and the end is stored (state) and told on the change feed (state.changes), which
webhooks, logs, metrics and waiting requests hear.

``LocalService`` is loaded lazily so that importing an engine module does not pull in the web server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcv_pipelines.service.server import LocalService

__all__ = ["LocalService"]


def __getattr__(name: str) -> Any:
    if name == "LocalService":
        from mcv_pipelines.service.server import LocalService

        return LocalService
    raise AttributeError(name)
