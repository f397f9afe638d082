"""The console's static files, shipped as package data and sent with a strict Content-Security-Policy.

No inline script or style is allowed: every script is a file under static/, so an injected string
(a task message, a tag) can never run. ``connect-src 'self'`` keeps the key's requests on this origin.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcv_pipelines.service.http.errors import not_found

__all__ = ["SECURITY_HEADERS", "asset", "index", "to_console"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}


@cache
def _files() -> dict[str, bytes]:
    """Every file of static/ by name (a flat folder: a name never reaches outside it)."""
    folder = resources.files("mcv_pipelines.service.http.console") / "static"
    return {entry.name: entry.read_bytes() for entry in folder.iterdir() if entry.is_file()}


def _send(name: str) -> Response:
    content = _files().get(name)
    suffix = name[name.rfind(".") :] if "." in name else ""
    if content is None or suffix not in _TYPES:
        raise not_found("Console file")
    return Response(content, media_type=_TYPES[suffix], headers=SECURITY_HEADERS)


async def to_console(request: Request) -> Response:
    return RedirectResponse("console/", status_code=308)  # relative: works under a proxy's path prefix


async def index(request: Request) -> Response:
    return _send("index.html")


async def asset(request: Request) -> Response:
    return _send(str(request.path_params["name"]))
