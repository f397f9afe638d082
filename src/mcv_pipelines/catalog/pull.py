"""Saving a live listing as a snapshot: every page parsed and checked first, then one atomic write.

The command passes the pages as the client fetches them (GET /v2/operations with ``LISTING_QUERY``,
following ``links.next``). A page that fails half way, or one that is not a listing, raises before
anything is written, so the old snapshot stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.diff import CatalogDiff, diff_catalogs
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import parse_pages
from mcv_pipelines.catalog.snapshot import load_catalog, write_catalog
from mcv_pipelines.errors import McvError

__all__ = ["LISTING_QUERY", "PullResult", "pull_catalog"]

# The query of GET /v2/operations that describes every conversion type with all it needs.
LISTING_QUERY = {"include": "options,engine_versions", "alternatives": "true"}


@dataclass(frozen=True, slots=True)
class PullResult:
    catalog: Catalog
    path: Path
    changes: CatalogDiff | None  # against the snapshot that was there; None when none (or unreadable)


def pull_catalog(pages: Iterable[Any], path: Path, *, source: str) -> PullResult:
    """Parse every page, then replace the snapshot at ``path`` atomically; report what changed."""
    catalog = parse_pages(pages, source=source)
    try:
        old = load_catalog(path) if path.exists() else None
    except McvError:
        old = None  # a broken old snapshot is what a pull repairs; there is nothing to compare with
    write_catalog(catalog, path)
    return PullResult(catalog, path, diff_catalogs(old, catalog) if old is not None else None)
