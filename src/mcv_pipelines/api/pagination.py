"""Walking a paginated list: follow ``links.next`` until it is null (``links.last`` is often null)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import urljoin

from mcv_pipelines.api.errors import BadResponse
from mcv_pipelines.api.http import Kind, Requester
from mcv_pipelines.api.models import ListPage, ModelError

__all__ = ["iterate_pages", "paginate"]

T = TypeVar("T")
MAX_PAGES = 100_000  # a service that never stops is broken; do not follow it forever


async def iterate_pages(
    requester: Requester,
    url: str,
    params: Mapping[str, str] | None,
    parse: Callable[[Any], T],
) -> AsyncIterator[ListPage[T]]:
    """Yield each page of the list at ``url``; the query of a next link already carries the filters."""
    seen: set[str] = set()
    next_url: str | None = url
    next_params = params
    while next_url is not None:
        data = await requester.request("GET", next_url, kind=Kind.IDEMPOTENT, params=next_params)
        try:
            page = ListPage.from_json(data, parse)
        except ModelError as exc:
            raise BadResponse("GET", _short(next_url), str(exc)) from exc
        yield page
        seen.add(next_url if next_params is None else f"{next_url}?{sorted(next_params.items())}")
        if page.next_url is None:
            return
        candidate = urljoin(next_url, page.next_url)
        if candidate in seen or len(seen) >= MAX_PAGES:
            raise BadResponse("GET", _short(next_url), "the next-page links go round in a circle")
        next_url, next_params = candidate, None


async def paginate(
    requester: Requester,
    url: str,
    params: Mapping[str, str] | None,
    parse: Callable[[Any], T],
) -> AsyncIterator[T]:
    """Yield every item of every page."""
    async for page in iterate_pages(requester, url, params, parse):
        for item in page.items:
            yield item


def _short(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
