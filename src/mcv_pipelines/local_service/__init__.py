"""The embedded local implementation of the conversion service (Starlette + uvicorn).

``LocalService`` (from ``mcv_pipelines.local_service.server``) runs it in-process; ``mcv serve`` runs
it from the command line. The name is loaded lazily so that importing an engine module does not pull
in the web server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcv_pipelines.local_service.server import LocalService

__all__ = ["LocalService"]


def __getattr__(name: str) -> Any:
    if name == "LocalService":
        from mcv_pipelines.local_service.server import LocalService

        return LocalService
    raise AttributeError(name)
