"""The live listing: GET /v2/operations with every option and engine, read through the API client.

From the configured service, or, when none is configured (or ``local``), from the embedded local
service started in-process on a loopback port with a temporary data directory. Every page is read
before anything is written, so a listing that fails half way leaves the old snapshot as it was.

It lives in ``run`` (above the catalog, the client and the service) because it may start the
embedded service; the catalog below it only parses and saves what it reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import parse_pages
from mcv_pipelines.catalog.pull import PullResult, pull_catalog
from mcv_pipelines.errors import InvalidInput, ServiceTrouble

__all__ = ["ClientFactory", "LiveListing", "fetch_listing", "live_catalog", "pull_live", "read_live"]

ClientFactory = Callable[[Settings], ApiClient]
LOCAL_SOURCE = "the embedded local service"


class LiveListing:
    """The raw descriptors of a live listing (in listing order: it says which engine is the default)."""

    def __init__(self, items: list[dict[str, Any]], source: str) -> None:
        self.items = items
        self.source = source


async def fetch_listing(client: ApiClient) -> list[dict[str, Any]]:
    """Every conversion type, with options and engine versions, alternatives included; all pages."""
    operations = await client.list_operations(include=("options", "engine_versions"), alternatives=True)
    return [dict(op.raw) for op in operations]


@contextmanager
def _service(settings: Settings | None) -> Iterator[tuple[Settings, str]]:
    """The settings to read with: the configured service, else a local one for as long as needed."""
    if settings is not None and settings.is_configured:
        yield settings, str(settings.base_url)
        return
    # Imported here: starting a web server is the exception, and validation never needs one.
    from mcv_pipelines.service.server import LocalService

    with LocalService() as service:
        yield Settings(base_url=service.base_url, api_key=service.api_key), LOCAL_SOURCE


def read_live(settings: Settings | None, client_factory: ClientFactory = ApiClient) -> LiveListing:
    """Read the whole listing; ``settings`` None (or not configured) reads the embedded local service."""
    with _service(settings) as (use, source):

        async def fetch() -> list[dict[str, Any]]:
            async with client_factory(use) as client:
                return await fetch_listing(client)

        return LiveListing(asyncio.run(fetch()), source)


def live_catalog(settings: Settings | None, client_factory: ClientFactory = ApiClient) -> Catalog:
    """The live listing as a catalog (``mcv catalog diff SNAPSHOT``)."""
    live = read_live(settings, client_factory)
    return parse_pages([live.items], source=live.source)


def pull_live(
    settings: Settings | None, path: Path, client_factory: ClientFactory = ApiClient
) -> tuple[PullResult, str]:
    """Read the live listing and replace the snapshot at ``path`` atomically; returns where it came from.

    Any failure (a page that fails half way, a listing that is not one) raises before the write.
    """
    kept = f"{path} is left as it was" if path.exists() else f"{path} was not written"
    try:
        live = read_live(settings, client_factory)
        return pull_catalog([live.items], path, source=live.source), live.source
    except ServiceTrouble as exc:
        raise ServiceTrouble(f"cannot read the operations listing: {exc}; {kept}") from exc
    except InvalidInput as exc:
        raise InvalidInput(f"{exc}; {kept}") from exc
