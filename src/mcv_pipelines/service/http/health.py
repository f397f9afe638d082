"""``GET /healthz`` (the process answers) and ``GET /readyz`` (what it depends on answers).

Readiness is a list of named checks (``ServiceContext.ready_checks``): each raises when what it
checks cannot be used. ``/readyz`` runs them all and answers 200, or 503 with a JSON body naming each
check that failed and why. A load balancer sends requests only to ready processes; an orchestrator
restarts one that is not healthy.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mcv_pipelines import __version__
from mcv_pipelines.redact import redact
from mcv_pipelines.service.files.storage import Storage
from mcv_pipelines.service.state.database import Database

__all__ = ["Check", "database_check", "healthz", "readyz", "storage_check"]

Check = tuple[str, Callable[[], None]]  # (name, raises when not ready)


def database_check(db: Database) -> Check:
    return ("database", db.ping)


def storage_check(storage: Storage) -> Check:
    """The store of tasks' files answers (its ping never raises: it says yes or no)."""

    def check() -> None:
        if not storage.ping():
            raise ConnectionError(f"the file store {storage.url} does not answer")

    return ("storage", check)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__})


def _run_checks(checks: list[Check]) -> dict[str, str]:
    failed: dict[str, str] = {}
    for name, check in checks:
        try:
            check()
        except Exception as exc:  # any failure means "not ready": say which and why
            failed[name] = redact(str(exc) or type(exc).__name__)
    return failed


async def readyz(request: Request) -> Response:
    checks: list[Check] = request.app.state.ctx.ready_checks
    failed = await run_in_threadpool(_run_checks, checks)
    body = {
        "status": "unavailable" if failed else "ok",
        "checks": {name: ("failed" if name in failed else "ok") for name, _ in checks},
        "failed": [{"check": name, "reason": reason} for name, reason in failed.items()],
    }
    return JSONResponse(body, status_code=503 if failed else 200)
