"""One route per path, whatever the number of methods it serves.

The route table lists one handler per (path, method), which reads well, but Starlette answers a
wrong method with the ``Allow`` header of the first route whose path matched: ``OPTIONS /v2/jobs``
said ``Allow: POST`` though the path also serves GET (issue 29). :func:`one_route_per_path` folds the
table so each path is one route that knows all of its methods and hands a request to the handler of
its method; a 405 then names every method the path supports (RFC 9110, section 15.5.6).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

__all__ = ["one_route_per_path"]

Handler = Callable[[Request], Awaitable[Response]]


def _dispatcher(handlers: dict[str, Handler]) -> Handler:
    async def dispatch(request: Request) -> Response:
        # HEAD is served by the GET handler unless a route names HEAD itself (the server drops the body).
        handler = handlers.get(request.method) or handlers["GET"]
        return await handler(request)

    return dispatch


def one_route_per_path(table: Sequence[BaseRoute]) -> list[BaseRoute]:
    """``table`` with the routes that share a path (and its order) merged into one route.

    A path served by one route keeps that route as it is. Two routes naming the same method for one
    path are a mistake in the table, refused here rather than left to shadow each other.
    """
    grouped: dict[str, list[Route]] = {}
    order: list[str | BaseRoute] = []
    for route in table:
        if not isinstance(route, Route) or route.methods is None:
            order.append(route)
            continue
        if route.path not in grouped:
            grouped[route.path] = []
            order.append(route.path)
        grouped[route.path].append(route)
    merged: list[BaseRoute] = []
    for item in order:
        if not isinstance(item, str):
            merged.append(item)
            continue
        same_path = grouped[item]
        if len(same_path) == 1:
            merged.append(same_path[0])
            continue
        handlers: dict[str, Handler] = {}
        for route in same_path:
            for method in route.methods or ():
                if method == "HEAD" and "GET" in (route.methods or ()):
                    continue  # a GET route's HEAD (Starlette adds it): the dispatcher sends it to GET
                if method in handlers:
                    raise ValueError(f"two routes serve {method} {item}")
                handlers[method] = route.endpoint
        merged.append(Route(item, _dispatcher(handlers), methods=sorted(handlers), name=same_path[0].name))
    return merged
