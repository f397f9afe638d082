"""The operations catalog: snapshots of GET /v2/operations, lookups, derived option schemas, checks.

What the rest of the program calls: ``load_catalog`` / ``load_default_catalog`` / ``select_catalog`` to
get a ``Catalog``; ``catalog_checker(catalog)`` (or ``check_pipeline(..., catalog=...)``) to check a
rendered pipeline; ``infer_formats`` for the formats along a graph; ``check_task`` per processing task;
``pull_catalog`` to save a listing; ``diff_catalogs``; ``build_plan`` for `mcv plan`.

This package sits below ``pipeline`` and imports nothing above it: the live listing (which reads a
service through the API client, or starts an embedded one) is ``run.live_listing``, and the planner of
`mcv plan` (which loads and renders pipelines) is ``pipeline.planner``.

Names are imported on first use (``lazy_exports``), so importing one module of the package does not
load the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcv_pipelines.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from mcv_pipelines.catalog.check import check_task, check_task_inputs, is_catalogued
    from mcv_pipelines.catalog.credits import CreditEstimate, estimate_credits
    from mcv_pipelines.catalog.diff import CatalogDiff, diff_catalogs
    from mcv_pipelines.catalog.formats import format_from_name, listing_formats, output_format_of
    from mcv_pipelines.catalog.index import Catalog
    from mcv_pipelines.catalog.inference import TaskFormats, infer_formats
    from mcv_pipelines.catalog.listing import parse_listing, parse_pages
    from mcv_pipelines.catalog.model import ConversionKey, Descriptor, EngineVersionDef, OptionDef
    from mcv_pipelines.catalog.pipelinecheck import catalog_checker, check_pipeline_catalog
    from mcv_pipelines.catalog.plan import Plan, PlannedTask, build_plan
    from mcv_pipelines.catalog.pull import LISTING_QUERY, pull_catalog
    from mcv_pipelines.catalog.snapshot import (
        default_catalog_path,
        load_catalog,
        load_default_catalog,
        select_catalog,
        write_catalog,
    )

_HOMES = {
    "Catalog": "index",
    "CatalogDiff": "diff",
    "ConversionKey": "model",
    "CreditEstimate": "credits",
    "Descriptor": "model",
    "EngineVersionDef": "model",
    "LISTING_QUERY": "pull",
    "OptionDef": "model",
    "Plan": "plan",
    "PlannedTask": "plan",
    "TaskFormats": "inference",
    "build_plan": "plan",
    "catalog_checker": "pipelinecheck",
    "check_pipeline_catalog": "pipelinecheck",
    "check_task": "check",
    "check_task_inputs": "check",
    "default_catalog_path": "snapshot",
    "diff_catalogs": "diff",
    "estimate_credits": "credits",
    "format_from_name": "formats",
    "infer_formats": "inference",
    "is_catalogued": "check",
    "listing_formats": "formats",
    "load_catalog": "snapshot",
    "load_default_catalog": "snapshot",
    "output_format_of": "formats",
    "parse_listing": "listing",
    "parse_pages": "listing",
    "pull_catalog": "pull",
    "select_catalog": "snapshot",
    "write_catalog": "snapshot",
}

__all__ = [
    "LISTING_QUERY",
    "Catalog",
    "CatalogDiff",
    "ConversionKey",
    "CreditEstimate",
    "Descriptor",
    "EngineVersionDef",
    "OptionDef",
    "Plan",
    "PlannedTask",
    "TaskFormats",
    "build_plan",
    "catalog_checker",
    "check_pipeline_catalog",
    "check_task",
    "check_task_inputs",
    "default_catalog_path",
    "diff_catalogs",
    "estimate_credits",
    "format_from_name",
    "infer_formats",
    "is_catalogued",
    "listing_formats",
    "load_catalog",
    "load_default_catalog",
    "output_format_of",
    "parse_listing",
    "parse_pages",
    "pull_catalog",
    "select_catalog",
    "write_catalog",
]

__getattr__ = lazy_exports(__name__, _HOMES)
