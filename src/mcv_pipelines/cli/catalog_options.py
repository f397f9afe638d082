"""The catalog options of the pipeline commands: ``--catalog PATH`` and ``--no-catalog``."""

from __future__ import annotations

import argparse

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.snapshot import select_catalog
from mcv_pipelines.diagnostics import Diagnostic

__all__ = ["add_catalog_options", "catalog_from_args"]


def add_catalog_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--catalog",
        metavar="PATH",
        help="operations catalog snapshot to check formats, engines and options against "
        "(default: the bundled schemas/catalog/local.json)",
    )
    group.add_argument(
        "--no-catalog", action="store_true", help="skip the catalog checks (formats, engines, options)"
    )


def catalog_from_args(args: argparse.Namespace) -> tuple[Catalog | None, list[Diagnostic]]:
    """The catalog to check with (None: no catalog checks) and a warning when the default is missing."""
    return select_catalog(args.catalog, enabled=not args.no_catalog)
